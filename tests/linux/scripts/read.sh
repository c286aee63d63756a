# The shell's read builtin (busybox polls its input before reading it): files, IFS,
# -r, fds, end of file.
printf 'first line\nsecond  words here\n\\back\\slash\nlast' > in
read a < in; echo "[$a]"
exec 4< in
read a <&4; read b c <&4; echo "[$a] [$b] [$c]"
read -r d <&4; echo "[$d]"
read e <&4; echo "status at last line without newline: $? [$e]"
read f <&4; echo "status at end of file: $? [$f]"
exec 4<&-
IFS=: read x y z < /etc/passwd; echo "[$x] [$y] [$z]"
while read l; do echo "line: $l"; done < in
