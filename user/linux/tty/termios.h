/* termios flag values and the tty ioctls (Linux's asm-generic/termbits.h and ioctls.h), for
 * the tty layer (ldisc.c, tty.c, pty.c). */
#ifndef LX_TTY_TERMIOS_H
#define LX_TTY_TERMIOS_H

enum { VINTR, VQUIT, VERASE, VKILL, VEOF, VTIME, VMIN, VSWTC, VSTART, VSTOP, VSUSP, VEOL,
       VREPRINT, VDISCARD, VWERASE, VLNEXT, VEOL2 };

#define ISTRIP  0000040
#define INLCR   0000100
#define IGNCR   0000200
#define ICRNL   0000400
#define IXON    0002000
#define OPOST   0000001
#define OLCUC   0000002
#define ONLCR   0000004
#define OCRNL   0000010
#define ONOCR   0000020
#define ONLRET  0000040
#define TABDLY  0014000
#define XTABS   0014000
#define B38400  0000017
#define B115200 0010002
#define CSIZE   0000060
#define CS8     0000060
#define CREAD   0000200
#define PARENB  0000400
#define HUPCL   0002000
#define CLOCAL  0004000
#define ISIG    0000001
#define ICANON  0000002
#define ECHO    0000010
#define ECHOE   0000020
#define ECHOK   0000040
#define ECHONL  0000100
#define NOFLSH  0000200
#define TOSTOP  0000400
#define ECHOCTL 0001000
#define ECHOKE  0004000
#define IEXTEN  0100000
#define BRKINT  0000002
#define IMAXBEL 0020000
#define IUTF8   0040000

#define TCGETS      0x5401
#define TCSETS      0x5402
#define TCSETSW     0x5403
#define TCSETSF     0x5404
#define TCSBRK      0x5409
#define TCXONC      0x540A
#define TCFLSH      0x540B
#define TIOCEXCL    0x540C
#define TIOCNXCL    0x540D
#define TIOCSCTTY   0x540E
#define TIOCGPGRP   0x540F
#define TIOCSPGRP   0x5410
#define TIOCOUTQ    0x5411
#define TIOCGWINSZ  0x5413
#define TIOCSWINSZ  0x5414
#define TIOCGSERIAL 0x541E
#define TIOCPKT     0x5420
#define TIOCNOTTY   0x5422
#define TIOCSETD    0x5423
#define TIOCGETD    0x5424
#define TCSBRKP     0x5425
#define TIOCGSID    0x5429
#define TIOCGPTN    0x80045430
#define TIOCSPTLCK  0x40045431
#define TIOCGPKT    0x80045438
#define TIOCGPTLCK  0x80045439
#define TIOCGEXCL   0x80045440
#define TIOCGPTPEER 0x5441

#define TCIFLUSH  0
#define TCOFLUSH  1
#define TCIOFLUSH 2

#define TIOCPKT_DATA       0
#define TIOCPKT_FLUSHREAD  1
#define TIOCPKT_FLUSHWRITE 2

#endif
