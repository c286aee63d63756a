/* Root's page map (pagemap.h).  `lowest` keeps the invariant "no free page below it", so a
 * single page comes from there at once; the summary lets the search for the next free page
 * step over full words 64 at a time.  (The first version kept its hint only while the
 * allocation started at it, and then walked every used page bit by bit on every page fault
 * of lx's heap: the multi-user benchmark's 3.57x at 16 users, docs/performance.md.) */
#include "pagemap.h"

#define WORDS    (PAGEMAP_PAGES / 64)
#define SUMMARY  (WORDS / 64)

static uint64_t used[WORDS];                /* one bit per page: handed out */
static uint64_t full[SUMMARY];              /* one bit per word of used[] that is ~0 */
static unsigned long lowest;                /* no free page below it */
/* Per colour: no free page of that colour in the words below it (a page's colour is its bit
 * in its word).  Taking a page keeps every bound; freeing one lowers its colour's. */
static unsigned long colour_from[PAGEMAP_COLOURS];
unsigned long pagemap_words_examined;

void pagemap_reset(void)
{
    for (unsigned long i = 0; i < WORDS; i++)
        used[i] = 0;
    for (unsigned long i = 0; i < SUMMARY; i++)
        full[i] = 0;
    lowest = 0;
    for (unsigned c = 0; c < PAGEMAP_COLOURS; c++)
        colour_from[c] = 0;
}

bool pagemap_used(unsigned long page)
{
    return used[page / 64] & (1ull << (page % 64));
}

static void set_word(unsigned long w, uint64_t bits)
{
    used[w] = bits;
    if (bits == ~0ull)
        full[w / 64] |= 1ull << (w % 64);
    else
        full[w / 64] &= ~(1ull << (w % 64));
}

void pagemap_mark(unsigned long first, unsigned long n, bool on)
{
    for (unsigned long p = first; p < first + n;) {
        unsigned long w = p / 64, bit = p % 64;
        unsigned long k = 64 - bit < first + n - p ? 64 - bit : first + n - p;
        uint64_t mask = (k == 64 ? ~0ull : ((1ull << k) - 1)) << bit;
        set_word(w, on ? used[w] | mask : used[w] & ~mask);
        p += k;
    }
    if (on)
        return;
    if (first < lowest)
        lowest = first;
    /* each colour's first page in the run is among its first 64 */
    for (unsigned long p = first; p < first + n && p < first + PAGEMAP_COLOURS; p++)
        if (p / 64 < colour_from[p % PAGEMAP_COLOURS])
            colour_from[p % PAGEMAP_COLOURS] = p / 64;
}

/* The lowest free page at or above p, or PAGEMAP_NONE. */
static unsigned long next_free(unsigned long p)
{
    while (p < PAGEMAP_PAGES) {
        unsigned long w = p / 64;
        pagemap_words_examined++;
        uint64_t free_bits = ~used[w] & (~0ull << (p % 64));
        if (free_bits)
            return w * 64 + (unsigned long)__builtin_ctzll(free_bits);
        /* The next word that is not full, by the summary. */
        unsigned long nw = w + 1, s = nw / 64;
        if (s >= SUMMARY)
            return PAGEMAP_NONE;
        uint64_t open = ~full[s] & (nw % 64 ? ~0ull << (nw % 64) : ~0ull);
        while (!open) {
            pagemap_words_examined++;
            if (++s >= SUMMARY)
                return PAGEMAP_NONE;
            open = ~full[s];
        }
        p = (s * 64 + (unsigned long)__builtin_ctzll(open)) * 64;
    }
    return PAGEMAP_NONE;
}

/* The first used page in [p, end), or end. */
static unsigned long next_used(unsigned long p, unsigned long end)
{
    while (p < end) {
        unsigned long w = p / 64;
        pagemap_words_examined++;
        uint64_t used_bits = used[w] & (~0ull << (p % 64));
        if (used_bits) {
            unsigned long u = w * 64 + (unsigned long)__builtin_ctzll(used_bits);
            return u < end ? u : end;
        }
        p = (w + 1) * 64;
    }
    return end;
}

/* Words below every colour's bound are skipped, and full words by the summary (next_free).
 * A word whose free pages have none of the colours raises the bound of every colour of the
 * mask, so a search never looks at such a word again until a page in it is freed: the cost
 * no longer grows with the memory in use (the first version stepped from the map's lowest
 * free page over every page of the other colours above it). */
unsigned long pagemap_find_coloured(uint64_t mask)
{
    if (!mask)
        return PAGEMAP_NONE;
    unsigned long w = WORDS;
    for (uint64_t m = mask; m; m &= m - 1)
        if (colour_from[__builtin_ctzll(m)] < w)
            w = colour_from[__builtin_ctzll(m)];
    unsigned long p = lowest = next_free(lowest), found = PAGEMAP_NONE;
    if (p != PAGEMAP_NONE && p / 64 < w)
        p = next_free(w * 64);
    while (p != PAGEMAP_NONE) {
        w = p / 64;
        uint64_t free_bits = ~used[w] & mask;
        if (free_bits) {
            found = w * 64 + (unsigned long)__builtin_ctzll(free_bits);
            break;
        }
        p = w + 1 < WORDS ? next_free((w + 1) * 64) : PAGEMAP_NONE;
    }
    w = found == PAGEMAP_NONE ? WORDS : found / 64;
    for (uint64_t m = mask; m; m &= m - 1)
        if (colour_from[__builtin_ctzll(m)] < w)
            colour_from[__builtin_ctzll(m)] = w;
    return found;
}

unsigned long pagemap_find(unsigned long n)
{
    if (!n || n > PAGEMAP_PAGES)
        return PAGEMAP_NONE;
    unsigned long first = lowest = next_free(lowest);
    while (first != PAGEMAP_NONE && first + n <= PAGEMAP_PAGES) {
        unsigned long u = next_used(first, first + n);
        if (u == first + n)
            return first;
        first = next_free(u);
    }
    return PAGEMAP_NONE;
}
