# Files and directories: ls, cp, mv, rm, ln, chmod, stat (fixed formats), find, xargs,
# df, mkdir, rmdir, basename, dirname, readlink (no pipes).
mkdir -p tree/a/b tree/c
echo one > tree/a/one
echo two > tree/a/b/two
printf '' > tree/c/empty
echo "== ls"; ls tree; ls tree/a
echo "== ls -1R"; ls -1R tree
echo "== ls -a"; ls -a tree/a
echo "== ls -d"; ls -d tree/a
ls missing; echo "ls status $?"
echo "== cp"
cp tree/a/one copy; cat copy
cp -r tree tree2; ls -1R tree2
cp missing x; echo "cp status $?"
cp tree x; echo "cp dir status $?"
echo "== mv"
mv copy moved; ls; cat moved
mv moved tree/c; ls tree/c
mv nothing there; echo "mv status $?"
echo "== rm"
rm tree/c/moved; ls tree/c
rm tree; echo "rm dir status $?"
rm -r tree2; ls
rm -f not-there; echo "rm -f status $?"
rm not-there; echo "rm status $?"
echo "== ln"
ln -s a/one tree/sym; readlink tree/sym; cat tree/sym
ln tree/a/one tree/hard; stat -c '%n %h %s' tree/a/one tree/hard
ln -s x tree/sym; echo "ln status $?"
ln -sf a/b/two tree/sym; cat tree/sym
echo "== chmod and stat"
chmod 600 tree/a/one; stat -c '%a %A %F %s %h %u %g %U %G' tree/a/one
chmod u+x,g+r tree/a/one; stat -c '%a %A' tree/a/one
chmod -R go-rwx tree/a; stat -c '%n %a' tree/a tree/a/b tree/a/b/two
chmod 4755 tree/c/empty; stat -c '%a %A %F %s' tree/c/empty
stat -c '%F' tree/sym tree . /dev/null
stat -L -c '%F %s' tree/sym
stat -c '%t:%T' /dev/null /dev/zero
stat missing; echo "stat status $?"
chmod 644 missing; echo "chmod status $?"
echo "== mkdir, rmdir"
echo -n > tree/new; stat -c '%s' tree/new
mkdir tree; echo "mkdir status $?"
mkdir -p tree/x/y/z; rmdir tree/x/y/z tree/x/y tree/x; ls tree
rmdir tree; echo "rmdir status $?"
echo "== find"
find tree > found; sort found
find tree -type f -name '*o*' > found; sort found
find tree -type d > found; sort found
find tree -name two -exec cat {} \;
find tree -empty > found; sort found
find missing; echo "find status $?"
echo "== xargs"
printf 'tree/a/b/two\ntree/hard\n' > list
xargs cat < list
xargs -n 1 echo arg: < list
echo "a b c d e" > words; xargs -n 2 echo < words
echo "== df"
df / > df.out; sed -n 1p df.out
echo "== basename, dirname, realpath"
basename /a/b/c.txt .txt; dirname /a/b/c.txt; dirname c
cd tree/a && pwd > ../../pwd.out; cd ../..
sed 's,.*/,,' pwd.out
realpath tree/sym > rp; sed 's,.*/tree,tree,' rp
