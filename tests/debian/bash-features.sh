# bash: arrays, associative arrays, [[ ]] and regular expressions, process substitution,
# here-strings and here-documents, traps, functions, arithmetic, parameter expansion.
set -u
a=(one two "three four" five)
echo "n=${#a[@]} last=${a[-1]} slice=${a[*]:1:2}"
a+=(six); unset 'a[1]'; echo "keys=${!a[*]} vals=${a[*]}"
declare -A m=([apple]=red [banana]=yellow [cherry]=dark)
for k in $(printf '%s\n' "${!m[@]}" | sort); do echo "$k=${m[$k]}"; done
s="version 12.34-beta"
if [[ $s =~ ([0-9]+)\.([0-9]+)(-([a-z]+))? ]]; then
    echo "major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]} tag=${BASH_REMATCH[4]}"
fi
[[ abc == a* && ! -e /nonexistent && 3 -lt 10 ]] && echo "glob and tests ok"
[[ "b" < "c" ]] && echo "string order ok"
while read -r x y; do echo "read: $x|$y"; done <<< "left right side"
cat <<END
heredoc: $((6 * 7)) ${s^^} ${s//[0-9]/N} ${s#version } ${s%-*}
END
cat <<'END'
quoted: $HOME `date`
END
diff <(printf '%s\n' a b c) <(printf '%s\n' a x c); echo "diff=$?"
mapfile -t lines < <(seq 3 -1 1); echo "mapfile=${lines[*]} count=${#lines[@]}"
paste -d: <(seq 1 3) <(seq 4 6)
f() { local v=$1; echo "f($v) depth=${#FUNCNAME[@]}"; return $(( v % 4 )); }
f 7; echo "f status=$?"
printf -v padded '%05d|%-6s|%x' 42 ab 255; echo "$padded"
echo "arith: $(( 2**10 )) $(( -7 / 2 )) $(( -7 % 3 )) $(( 1 << 40 )) $(( 0x10 | 3 ))"
true | false | true; echo "pipestatus=${PIPESTATUS[*]}"
set -o pipefail; true | false | true; echo "pipefail=$?"; set +o pipefail
trap 'echo "trap USR1"' USR1
kill -USR1 $$
trap 'echo "trap ERR at $LINENO"' ERR
false
trap - ERR
( trap 'echo "subshell exit trap"' EXIT; exit 3 ); echo "subshell=$?"
x=$( (exit 5) ); echo "cmdsubst=$?"
coproc UPPER { tr a-z A-Z; }
echo "coproc text" >&"${UPPER[1]}"; exec {UPPER[1]}>&-
read -r line <&"${UPPER[0]}"; echo "$line"; wait
eval 'echo "eval ${#s}"'
case "$s" in ver*) echo "case ver*";; *) echo "case other";; esac
for ((i = 0; i < 3; i++)); do echo -n "$i "; done; echo
echo {a..e} {1..10..3} x{y,z}
shopt -s extglob; v=aaa123; echo "${v##+(a)}"
trap 'echo "exit trap status=$?"' EXIT
exit 4
