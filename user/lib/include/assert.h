/* Minimal libc for native Pecan programs: assert() prints file:line and enters the kernel
 * debugger.  Not guarded, so that NDEBUG can be switched per inclusion as in ISO C. */
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
void l4lib_assert_fail(const char *expr, const char *file, int line, const char *func)
    __attribute__((noreturn));
#define assert(e) ((e) ? (void)0 : l4lib_assert_fail(#e, __FILE__, __LINE__, __func__))
#endif
