# Allocated sizes (st_blocks: du, ls -s, ls -l's total) and ls -l's dates of old files
# (busybox prints the year for a file more than six months older than now).
mkdir d
printf 'four' > d/small
seq 1 3000 > d/big
stat -c '%n %s %b %B' d/small d/big
du -s d/small d/big
du -s d
ls -s d/small
ls -ln /test/corpus/data
