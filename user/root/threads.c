/* Thread ids and root's thread records.  Root hands thread numbers out from UserBase + 3 up
 * (UserBase .. + 2 are sigma0, sigma1 and root), the lowest free one first (it keeps the
 * kernel's TCB array dense), up to the KIP's thread-number bits.  A freed number comes back
 * with the next version, so that an old id never names the new thread (time-unique ids,
 * contract §1.1).  The number table keeps, per number, its last version and its live
 * thread's record: a thread id finds its record in O(1), as every page fault of a task root
 * pages does.  Its pages are made when a number in them is first used and kept, because the
 * versions must outlive the threads: 16 bytes per number ever used (table_pages). */
#include "root.h"
#include "../../kernel/list.h"

#define PER_PAGE        256
#define MAX_NUMBER_BITS 22          /* the table's first level: 128 KiB at most */

struct number_page {
    uint64_t used[PER_PAGE / 64];           /* handed out (a record follows, or not yet) */
    uint32_t version[PER_PAGE];             /* the last version handed out; 0: never */
    struct thread_rec *rec[PER_PAGE];       /* the live thread's record */
};
_Static_assert(sizeof(struct number_page) <= 4096, "a number page is one page");

static struct number_page **pages;          /* [npages]; NULL until a number of it is used */
static uint64_t *open;                      /* bit p: page p has a free number (or is not made) */
static l4_word_t first_number, numbers, npages, table_pages, nrecords;
static struct record_cache rec_cache = RECORD_CACHE(struct thread_rec);

static bool table_ready(void)
{
    if (pages)
        return true;
    unsigned bits = l4_kip_thread_bits();
    if (bits > MAX_NUMBER_BITS)
        bits = MAX_NUMBER_BITS;
    first_number = l4_kip_user_base() + 3;
    if ((1ul << bits) <= first_number)
        return false;
    numbers = (1ul << bits) - first_number;
    npages = (numbers + PER_PAGE - 1) / PER_PAGE;
    l4_word_t words = (npages + 63) / 64;
    open = root_alloc(words * 8);
    pages = open ? root_alloc(npages * sizeof(*pages)) : NULL;
    if (!pages) {
        root_free(open, words * 8);
        open = NULL;
        return false;
    }
    table_pages = ((words * 8 + 4095) >> 12) + ((npages * sizeof(*pages) + 4095) >> 12);
    for (l4_word_t p = 0; p < npages; p++)
        open[p / 64] |= 1ull << (p % 64);
    return true;
}

/* The page of number n, made on first use (numbers past the last count as used). */
static struct number_page *page_of(l4_word_t n, bool make)
{
    struct number_page *pg = pages[n / PER_PAGE];
    if (pg || !make || !(pg = root_alloc_page()))
        return pg;
    for (l4_word_t i = numbers - n / PER_PAGE * PER_PAGE; i < PER_PAGE; i++)
        pg->used[i / 64] |= 1ull << (i % 64);
    table_pages++;
    return pages[n / PER_PAGE] = pg;
}

l4_word_t new_thread_id(void)
{
    if (!table_ready())
        return 0;
    for (l4_word_t w = 0; w < (npages + 63) / 64; w++) {
        if (!open[w])
            continue;
        l4_word_t p = w * 64 + (l4_word_t)__builtin_ctzll(open[w]);
        struct number_page *pg = page_of(p * PER_PAGE, true);
        if (!pg)
            return 0;
        for (unsigned k = 0; k < PER_PAGE / 64; k++) {
            if (!~pg->used[k])
                continue;
            unsigned i = k * 64 + (unsigned)__builtin_ctzll(~pg->used[k]);
            pg->used[k] |= 1ull << (i % 64);
            bool full = true;
            for (unsigned j = 0; j < PER_PAGE / 64; j++)
                full &= !~pg->used[j];
            if (full)
                open[w] &= ~(1ull << (p % 64));
            /* versions with the low six bits zero would read as local ids */
            do
                pg->version[i]++;
            while (!(pg->version[i] & 0x3F));
            return l4_global_id(first_number + p * PER_PAGE + i, pg->version[i]);
        }
    }
    return 0;
}

void free_thread_id(l4_word_t tid)
{
    l4_word_t n = l4_thread_no(tid) - first_number;
    struct number_page *pg = pages && n < numbers ? page_of(n, false) : NULL;
    if (!pg)
        return;
    unsigned i = n % PER_PAGE;
    pg->used[i / 64] &= ~(1ull << (i % 64));
    open[n / PER_PAGE / 64] |= 1ull << (n / PER_PAGE % 64);
}

l4_word_t thread_table_pages(void)
{
    return table_pages;
}

/* --- records ------------------------------------------------------------------------------- */

bool register_thread(l4_word_t tid, struct task *t, l4_word_t creator)
{
    l4_word_t n = l4_thread_no(tid) - first_number;
    struct number_page *pg = pages && n < numbers ? page_of(n, false) : NULL;
    struct thread_rec *r = pg ? record_alloc(&rec_cache) : NULL;
    if (!r)
        return false;
    *r = (struct thread_rec){ .tid = tid, .task = t, .creator = creator };
    LIST_PUSH(t->threads, r, next, prev);
    t->nthreads++;
    pg->rec[n % PER_PAGE] = r;
    nrecords++;
    return true;
}

struct thread_rec *rec_of(l4_word_t tid)
{
    l4_word_t n = l4_thread_no(tid) - first_number;
    struct number_page *pg = pages && n < numbers ? page_of(n, false) : NULL;
    struct thread_rec *r = pg ? pg->rec[n % PER_PAGE] : NULL;
    return r && r->tid == tid ? r : NULL;
}

struct task *task_of_thread(l4_word_t tid)
{
    struct thread_rec *r = rec_of(tid);
    return r ? r->task : NULL;
}

void forget_thread(struct thread_rec *r)
{
    struct task *t = r->task;
    LIST_UNLINK(t->threads, r, next, prev);
    t->nthreads--;
    l4_word_t n = l4_thread_no(r->tid) - first_number;
    page_of(n, false)->rec[n % PER_PAGE] = NULL;
    free_thread_id(r->tid);
    record_free(&rec_cache, r);
    nrecords--;
}

l4_word_t thread_records(void)
{
    return nrecords;
}
