/* The region tree (vma.h): an AVL tree with parent links, the regions its nodes.
 *
 * Why AVL: every page fault and every user copy looks a region up, and an AVL tree is the
 * shallowest of the balanced binary trees (height below 1.44 log2 n: 23 levels for
 * 65,530 regions), while insertions and removals (mmap, munmap) are rarer; parent links
 * give in-order steps without a stack.  Each node also summarises its subtree: the lowest
 * start, the highest end and the largest gap between two of its regions.  The summary
 * depends on the subtree alone (not on neighbours outside it), so a rotation recomputes it
 * for the two nodes it moves, and the gap search below can skip every subtree whose gaps
 * are all too small. */
#include "mm/vma.h"

static int height(const struct region *n)
{
    return n ? n->height : 0;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* n's height and summary from its children's. */
static void update(struct region *n)
{
    const struct region *l = n->left, *r = n->right;
    int hl = height(l), hr = height(r);
    n->height = 1 + (hl > hr ? hl : hr);
    n->sub_start = l ? l->sub_start : n->start;
    n->sub_end = r ? r->sub_end : n->end;
    uint64_t gap = 0;
    if (l)
        gap = max64(l->sub_gap, n->start - l->sub_end);
    if (r)
        gap = max64(gap, max64(r->sub_gap, r->sub_start - n->end));
    n->sub_gap = gap;
}

/* old's place under parent (or the root) goes to new. */
static void replace_child(struct vma_tree *t, struct region *parent, struct region *old,
                          struct region *new)
{
    if (!parent)
        t->root = new;
    else if (parent->left == old)
        parent->left = new;
    else
        parent->right = new;
    if (new)
        new->parent = parent;
}

static struct region *rotate_left(struct vma_tree *t, struct region *x)
{
    struct region *y = x->right;
    replace_child(t, x->parent, x, y);
    x->right = y->left;
    if (y->left)
        y->left->parent = x;
    y->left = x;
    x->parent = y;
    update(x);
    update(y);
    return y;
}

static struct region *rotate_right(struct vma_tree *t, struct region *x)
{
    struct region *y = x->left;
    replace_child(t, x->parent, x, y);
    x->left = y->right;
    if (y->right)
        y->right->parent = x;
    y->right = x;
    x->parent = y;
    update(x);
    update(y);
    return y;
}

/* n's subtree balanced again (its children are); the node now at its place. */
static struct region *rebalance(struct vma_tree *t, struct region *n)
{
    update(n);
    int balance = height(n->left) - height(n->right);
    if (balance > 1) {
        if (height(n->left->left) < height(n->left->right))
            rotate_left(t, n->left);
        return rotate_right(t, n);
    }
    if (balance < -1) {
        if (height(n->right->right) < height(n->right->left))
            rotate_right(t, n->right);
        return rotate_left(t, n);
    }
    return n;
}

/* From n up to the root: heights, balance and summaries (all of them may have changed). */
static void fix_up(struct vma_tree *t, struct region *n)
{
    while (n)
        n = rebalance(t, n)->parent;
}

struct region *vma_find(const struct vma_tree *t, uint64_t addr)
{
    struct region *n = t->root;
    while (n) {
        if (addr < n->start)
            n = n->left;
        else if (addr >= n->end)
            n = n->right;
        else
            return n;
    }
    return NULL;
}

struct region *vma_from(const struct vma_tree *t, uint64_t addr)
{
    struct region *n = t->root, *best = NULL;
    while (n) {
        if (n->end > addr) {
            best = n;               /* disjoint regions: the ends are in order too */
            n = n->left;
        } else {
            n = n->right;
        }
    }
    return best;
}

static struct region *leftmost(struct region *n)
{
    while (n && n->left)
        n = n->left;
    return n;
}

static struct region *rightmost(struct region *n)
{
    while (n && n->right)
        n = n->right;
    return n;
}

struct region *vma_first(const struct vma_tree *t)
{
    return leftmost(t->root);
}

struct region *vma_last(const struct vma_tree *t)
{
    return rightmost(t->root);
}

struct region *vma_next(const struct region *r)
{
    if (r->right)
        return leftmost(r->right);
    while (r->parent && r->parent->right == r)
        r = r->parent;
    return r->parent;
}

struct region *vma_prev(const struct region *r)
{
    if (r->left)
        return rightmost(r->left);
    while (r->parent && r->parent->left == r)
        r = r->parent;
    return r->parent;
}

void vma_insert(struct vma_tree *t, struct region *r)
{
    struct region *parent = NULL, **link = &t->root;
    while (*link) {
        parent = *link;
        link = r->start < parent->start ? &parent->left : &parent->right;
    }
    r->left = r->right = NULL;
    r->parent = parent;
    *link = r;
    fix_up(t, r);
}

void vma_remove(struct vma_tree *t, struct region *r)
{
    struct region *from;            /* the lowest node whose subtree changed */
    if (r->left && r->right) {
        /* Its successor (no left child) takes its place. */
        struct region *s = leftmost(r->right);
        if (s->parent != r) {
            from = s->parent;
            replace_child(t, s->parent, s, s->right);
            s->right = r->right;
            s->right->parent = s;
        } else {
            from = s;
        }
        replace_child(t, r->parent, r, s);
        s->left = r->left;
        s->left->parent = s;
    } else {
        from = r->parent;
        replace_child(t, r->parent, r, r->left ? r->left : r->right);
    }
    r->left = r->right = r->parent = NULL;
    fix_up(t, from);
}

void vma_drain(struct vma_tree *t, void (*gone)(struct region *r))
{
    struct region *n = t->root;
    while (n) {
        if (n->left) {              /* down to a leaf, then off it and up */
            n = n->left;
        } else if (n->right) {
            n = n->right;
        } else {
            struct region *parent = n->parent;
            if (parent && parent->left == n)
                parent->left = NULL;
            else if (parent)
                parent->right = NULL;
            gone(n);
            n = parent;
        }
    }
    t->root = NULL;
}

void vma_resized(struct vma_tree *t, struct region *r)
{
    fix_up(t, r);
}

/* The highest fit in the free interval [g0, g1) clipped to [lo, hi). */
static bool fit(uint64_t g0, uint64_t g1, uint64_t lo, uint64_t hi, uint64_t len, uint64_t *at)
{
    if (g0 < lo)
        g0 = lo;
    if (g1 > hi)
        g1 = hi;
    if (g1 <= g0 || g1 - g0 < len)
        return false;
    *at = g1 - len;
    return true;
}

/* The highest fit among the gaps between regions of n's subtree, highest gap first.  A
 * subtree whose largest gap is too small, or whose gaps all lie outside [lo, hi), is
 * skipped; one wholly inside [lo, hi) with a large enough gap always succeeds, so the
 * search visits O(log n) nodes. */
static bool gap_in(const struct region *n, uint64_t lo, uint64_t hi, uint64_t len,
                   uint64_t *at)
{
    if (!n || n->sub_gap < len || n->sub_end <= lo || n->sub_start >= hi)
        return false;
    if (gap_in(n->right, lo, hi, len, at))
        return true;
    if (n->right && fit(n->end, n->right->sub_start, lo, hi, len, at))
        return true;
    if (n->left && fit(n->left->sub_end, n->start, lo, hi, len, at))
        return true;
    return gap_in(n->left, lo, hi, len, at);
}

bool vma_gap_down(const struct vma_tree *t, uint64_t lo, uint64_t hi, uint64_t len,
                  uint64_t *at)
{
    const struct region *root = t->root;
    if (!len || hi <= lo || hi - lo < len)
        return false;
    if (!root)
        return fit(lo, hi, lo, hi, len, at);
    return fit(root->sub_end, UINT64_MAX, lo, hi, len, at) ||     /* above every region */
           gap_in(root, lo, hi, len, at) ||
           fit(0, root->sub_start, lo, hi, len, at);               /* below every region */
}
