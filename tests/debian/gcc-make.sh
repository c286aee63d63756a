# gcc and make: a program of three C files and a header, built by a Makefile with make -j2,
# then run; a rebuild after a change; a static archive with ar; an error's exit status.
mkdir -p src && cd src
cat > list.h <<'C'
struct node { int value; struct node *next; };
struct node *push(struct node *head, int value);
int sum(const struct node *head);
void release(struct node *head);
C
cat > list.c <<'C'
#include <stdlib.h>
#include "list.h"
struct node *push(struct node *head, int value)
{
    struct node *n = malloc(sizeof *n);
    n->value = value;
    n->next = head;
    return n;
}
int sum(const struct node *head) { return head ? head->value + sum(head->next) : 0; }
void release(struct node *head)
{
    while (head) { struct node *n = head->next; free(head); head = n; }
}
C
cat > fib.c <<'C'
unsigned long fib(int n)
{
    unsigned long a = 0, b = 1;
    while (n--) { unsigned long t = a + b; a = b; b = t; }
    return a;
}
C
cat > main.c <<'C'
#include <stdio.h>
#include <string.h>
#include "list.h"
unsigned long fib(int n);
int main(int argc, char **argv)
{
    struct node *h = NULL;
    for (int i = 1; i <= 100; i++)
        h = push(h, i);
    printf("sum=%d fib(90)=%lu argc=%d", sum(h), fib(90), argc);
    for (int i = 1; i < argc; i++)
        printf(" [%s:%zu]", argv[i], strlen(argv[i]));
    printf("\n");
    release(h);
    return argc - 1;
}
C
printf 'CFLAGS = -O2 -Wall -Werror\nOBJS = main.o list.o fib.o\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c list.h\n\t$(CC) $(CFLAGS) -c $<\nclean:\n\trm -f prog $(OBJS)\n.PHONY: clean\n' > Makefile
make -j2 >make.log 2>&1; echo "make=$?"; sort make.log
./prog one three; echo "prog=$?"
make; echo "again=$?"
sed -i 's/fib(90)/fib(91)/g' main.c; make -j2 | sort; ./prog
ar rcs libl.a list.o fib.o; ar t libl.a; gcc -o prog2 main.o -L. -ll && ./prog2 x
nm list.o | awk '{ print $NF }' | sort | tr '\n' ' '; echo
echo 'int main(void) { return undefined_thing; }' > bad.c
gcc -c bad.c 2>&1 | grep -c error; echo "gcc bad=${PIPESTATUS[0]}"
make clean >/dev/null; ls; make -n | head -2
gcc -E -dM - </dev/null | grep -c __x86_64__
