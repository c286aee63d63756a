/* What wait reports about a child (starnix's ExitStatus): it exited with a code, a signal
 * killed it (with or without a core dump), it stopped, or it continued.  Encoded into wait4's
 * status word and into SIGCHLD's and waitid's siginfo here and nowhere else.
 *
 * The core flag (WCOREDUMP, CLD_DUMPED) is set where Linux sets it: only when a core file was
 * written (task/coredump.c), which needs RLIMIT_CORE of a page or more (the default soft
 * limit is 0, so by default a core-dump signal reports the signal alone). */
#ifndef LX_TASK_EXIT_STATUS_H
#define LX_TASK_EXIT_STATUS_H

#include <stdbool.h>

enum exit_kind { EXIT_NONE, EXIT_EXITED, EXIT_KILLED, EXIT_STOPPED, EXIT_CONTINUED };

struct exit_status {
    enum exit_kind kind;
    int value;                      /* EXITED: the code (0-255); KILLED, STOPPED: the signal */
    bool core;                      /* KILLED: a core file was written */
};

#define CLD_EXITED    1
#define CLD_KILLED    2
#define CLD_DUMPED    3
#define CLD_STOPPED   5
#define CLD_CONTINUED 6
#define SIGCONT_NR   18

static inline struct exit_status exit_status_code(int code)
{
    return (struct exit_status){ EXIT_EXITED, code & 0xFF, false };
}

static inline struct exit_status exit_status_killed(int sig)
{
    return (struct exit_status){ EXIT_KILLED, sig, false };
}

static inline struct exit_status exit_status_dumped(int sig, bool core)
{
    return (struct exit_status){ EXIT_KILLED, sig, core };
}

static inline struct exit_status exit_status_stopped(int sig)
{
    return (struct exit_status){ EXIT_STOPPED, sig, false };
}

static inline struct exit_status exit_status_continued(void)
{
    return (struct exit_status){ EXIT_CONTINUED, SIGCONT_NR, false };
}

/* wait4's status word: code << 8; the signal (| 0x80 with a core); 0x7F | sig << 8; 0xFFFF. */
static inline int exit_status_word(struct exit_status s)
{
    switch (s.kind) {
    case EXIT_EXITED: return s.value << 8;
    case EXIT_KILLED: return s.value | (s.core ? 0x80 : 0);
    case EXIT_STOPPED: return 0x7F | s.value << 8;
    case EXIT_CONTINUED: return 0xFFFF;
    default: return 0;
    }
}

/* SIGCHLD's and waitid's si_code (CLD_*) and si_status. */
static inline int exit_status_cld(struct exit_status s)
{
    switch (s.kind) {
    case EXIT_EXITED: return CLD_EXITED;
    case EXIT_KILLED: return s.core ? CLD_DUMPED : CLD_KILLED;
    case EXIT_STOPPED: return CLD_STOPPED;
    default: return CLD_CONTINUED;
    }
}

static inline int exit_status_si_status(struct exit_status s)
{
    return s.value;                 /* the code, or the signal (SIGCONT for continued) */
}

#endif
