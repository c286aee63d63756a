/* Thread numbers: root hands them out from UserBase + 3 up (UserBase .. + 2 are sigma0,
 * sigma1 and root).  A freed number comes back with the next version, so that an old id
 * never names the new thread (time-unique ids, contract §1.1). */
#include "root.h"

#define MAX_NUMBERS 1024

static uint32_t version[MAX_NUMBERS];       /* 0: free, never used */
static bool in_use[MAX_NUMBERS];

l4_word_t new_thread_id(void)
{
    for (unsigned i = 0; i < MAX_NUMBERS; i++)
        if (!in_use[i]) {
            in_use[i] = true;
            /* versions with the low six bits zero would read as local ids */
            do
                version[i]++;
            while (!(version[i] & 0x3F));
            return l4_global_id(l4_kip_user_base() + 3 + i, version[i]);
        }
    return 0;
}

void free_thread_id(l4_word_t tid)
{
    l4_word_t i = l4_thread_no(tid) - l4_kip_user_base() - 3;
    if (i < MAX_NUMBERS)
        in_use[i] = false;
}
