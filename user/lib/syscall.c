/* libl4: the cached system-call entry addresses (contract §2.2, §2.7).  The KIP fields hold
 * absolute addresses that are the same in every address space, so the table stays valid in
 * spaces that share this image. */
#include <libl4/syscall.h>
#include <l4/kip.h>

struct l4lib_syscall_table l4lib_syscalls;

void l4lib_init_syscalls(const void *kip)
{
    l4lib_syscalls.space_control      = l4_kip_word(kip, L4_KIP_OFF_SPACE_CONTROL);
    l4lib_syscalls.thread_control     = l4_kip_word(kip, L4_KIP_OFF_THREAD_CONTROL);
    l4lib_syscalls.processor_control  = l4_kip_word(kip, L4_KIP_OFF_PROC_CONTROL);
    l4lib_syscalls.memory_control     = l4_kip_word(kip, L4_KIP_OFF_MEMORY_CONTROL);
    l4lib_syscalls.ipc                = l4_kip_word(kip, L4_KIP_OFF_IPC);
    l4lib_syscalls.lipc               = l4_kip_word(kip, L4_KIP_OFF_LIPC);
    l4lib_syscalls.unmap              = l4_kip_word(kip, L4_KIP_OFF_UNMAP);
    l4lib_syscalls.exchange_registers = l4_kip_word(kip, L4_KIP_OFF_EXREGS);
    l4lib_syscalls.system_clock       = l4_kip_word(kip, L4_KIP_OFF_SYSTEM_CLOCK);
    l4lib_syscalls.thread_switch      = l4_kip_word(kip, L4_KIP_OFF_THREAD_SWITCH);
    l4lib_syscalls.schedule           = l4_kip_word(kip, L4_KIP_OFF_SCHEDULE);
}
