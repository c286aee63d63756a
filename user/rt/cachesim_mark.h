/* Region markers of the cachesim QEMU plugin (tools/qemu_plugins/cachesim.c,
 * docs/cache-partitioning.md): multi-byte nops whose displacement the plugin recognises,
 * "nopl 0x4353ss01(%rax)" to start region ss and "nopl 0x4353ss02(%rax)" to end it.  Without
 * the plugin (or on hardware) they are plain nops. */
#ifndef CACHESIM_MARK_H
#define CACHESIM_MARK_H

#define CACHESIM_MARK(kind, id) \
    __asm__ volatile(".byte 0x0f, 0x1f, 0x80, " #kind ", " #id ", 0x53, 0x43" ::: "memory")
#define CACHESIM_START(id) CACHESIM_MARK(1, id)
#define CACHESIM_END(id)   CACHESIM_MARK(2, id)

#endif
