# File times: touch with fixed times, stat of mtimes, ls -l and find -newer by them.
export TZ=UTC0
touch -d @1000000000 old
touch -d '2020-02-29 12:34:56' new
stat -c '%n %Y %y' old new
ls -l old new > ls.out; sed 's/^[^ ]* *[0-9]* [^ ]* *[^ ]* *//' ls.out
find . -newer old -name new
touch -r old copy; stat -c '%n %Y' copy
touch -c nothing; echo "touch -c: $?"; test -e nothing || echo "not created"
ls -ln /test/corpus/data/words
