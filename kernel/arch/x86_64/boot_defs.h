/* Constants shared by the boot assembly and C. */
#ifndef BOOT_DEFS_H
#define BOOT_DEFS_H
#define KERNEL_VMA 0xFFFFFFFF80000000
#endif
