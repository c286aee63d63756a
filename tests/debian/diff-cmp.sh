# diffutils: diff (normal, unified with fixed labels, recursive, brief), cmp, diff3, sdiff.
# (patch is not in the root: Debian's patch package is not in tools/debroot/packages.txt.)
seq 1 20 > a; seq 1 20 | sed '5d; 12s/.*/twelve/; $a\
21' > b
diff a b; echo "diff=$?"
diff -u --label old --label new a b; echo "diff -u=$?"
diff -c --label old --label new a b | head -12
diff -q a b; diff -q a a; echo "same=$?"
diff --side-by-side -W 30 <(seq 3) <(seq 2 4); echo
mkdir -p x/s y/s; echo 1 > x/s/f; echo 2 > y/s/f; echo only > x/only; echo g > y/g
diff -r x y; echo "diff -r=$?"; diff -rq x y | sort
diff -ruN --label a --label b x/only y/only
cmp a b; echo "cmp=$?"; cmp -l a b | head -5; cmp -s a a; echo "cmp -s=$?"
cmp -n 8 a b; echo "cmp -n=$?"; cmp a /nonexistent 2>&1; echo "cmp missing=$?"
seq 5 > m1; seq 5 | sed 2s/2/two/ > m2; seq 5 | sed 4s/4/four/ > m3
diff3 m2 m1 m3; echo "diff3=$?"; diff3 -m m2 m1 m3; echo "diff3 -m=$?"
diff <(printf 'a\r\nb\n') <(printf 'a\nb\n') --strip-trailing-cr; echo "strip=$?"
diff -w <(echo 'a  b') <(echo 'a b'); echo "diff -w=$?"; diff -i <(echo ABC) <(echo abc); echo "diff -i=$?"
diff a /nonexistent 2>&1; echo "diff missing=$?"
