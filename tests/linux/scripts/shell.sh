# The shell language without pipes: variables, quoting, arithmetic, test, expr, seq, printf,
# if/case/for/while, functions, subshells, redirections, exit statuses, set, shift, eval.
x=5 y="two words"
echo "$x $y" '$x' ${#y} ${y%words} ${y#two } ${z:-default} ${x:+set}
echo $((x * 3 + 1)) $((17 % 5)) $((1 << 4)) $(( (2 + 3) * 4 ))
echo "== test"
test 3 -lt 5 && echo "3 < 5"
[ "abc" = "abc" ] && echo "strings equal"
[ -n "" ] || echo "empty string"
[ -d / ] && [ ! -f / ] && echo "/ is a directory"
[ -x /bin/sh ] && echo "sh executable"
[ -e /nonexistent ]; echo "missing: $?"
[ 2 -gt 1 -a 1 -eq 1 ] && echo "and"
[ 1 -gt 2 -o 1 -eq 1 ] && echo "or"
test; echo "empty test: $?"
[ 1 -eq x ] 2>/dev/null; echo "bad integer: $?"
echo "== expr"
expr 3 + 4; expr 10 / 3; expr 10 % 3; expr length "hello"; expr substr "hello" 2 3
expr index "hello" l; expr "abc" : 'a\(.*\)'; expr 5 \> 3; expr 0; echo "expr 0 status $?"
expr 1 / 0; echo "division by zero status $?"
echo "== seq"
seq 3; seq 2 4; seq 10 -3 1; seq -s, 1 5; seq -w 8 11
echo "== printf"
printf '%s|%5s|%-5s|%d|%05d|%x|%o|%c|%%\n' str ab cd 42 42 255 8 z
printf '%.2f %e\n' 3.14159 12345.678
printf '%s\n' a b c
printf 'esc: \101\t\x42\n'
echo "== control flow"
for i in 1 2 3; do printf '%s ' "$i"; done; echo
i=0; while [ $i -lt 3 ]; do i=$((i + 1)); done; echo "while: $i"
until [ $i -eq 0 ]; do i=$((i - 1)); done; echo "until: $i"
for w in apple fig kiwi; do
  case $w in
    a*) echo "$w starts with a";;
    f?g) echo "$w is f?g";;
    *) echo "$w other";;
  esac
done
f() { echo "f got $# args: $*"; return 3; }
f one "two three"; echo "f returned $?"
g() { local v=inner; echo $v; }; v=outer; g; echo $v
set -- a b c; echo "$# $1"; shift; echo "$# $1 $@"
eval 'echo eval works $x'
echo "== subshells"
(cd /; pwd); pwd > here; echo "cwd kept"
(x=changed; echo "inside $x"); echo "outside $x"
(exit 7); echo "subshell status $?"
{ echo grouped; echo twice; } > grp; cat grp
echo "== redirections"
echo first > out; echo second >> out; cat out
cat < out > copy; cat copy
echo to-stderr >&2
ls /nonexistent 2> err; echo "stderr captured: $?"; sed 's/nonexistent.*/nonexistent.../' err
echo both > both 2>&1; cat both
exec 3> fd3; echo via fd 3 >&3; exec 3>&-; cat fd3
exec 4< out; cat <&4; exec 4<&-
: > empty; wc -c < empty
echo "== exit statuses"
true; echo $?; false; echo $?; ! true; echo $?
/bin/sh -c 'exit 42'; echo "sh -c: $?"
nonexistent-command 2>/dev/null; echo "not found: $?"
/tmp 2>/dev/null; echo "not executable: $?"
true && echo and-list; false || echo or-list
set -e; (false; echo not reached) ; echo "never"
