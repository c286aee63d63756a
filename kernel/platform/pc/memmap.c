/* The PC's physical memory beyond the loader's map: the legacy VGA window and the option
 * ROMs, device memory that sigma0 may hand to anyone (contract §7.2, item 3).  The pages of
 * the kernel's own devices are intctl.c's (arch_kernel_device). */
#include "platform.h"

static const struct { paddr_t start, end; } shared[] = {
    { 0xA0000, 0xC0000 },               /* VGA */
    { 0xC0000, 0xF0000 },               /* option ROMs */
};

bool arch_shared_memory(unsigned i, paddr_t *start, paddr_t *end)
{
    if (i >= ARRAY_SIZE(shared))
        return false;
    *start = shared[i].start;
    *end = shared[i].end;
    return true;
}
