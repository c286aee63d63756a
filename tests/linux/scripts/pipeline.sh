# A many-process pipeline: 30 stages between seq and wc.
seq 1 2000 | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat \
  | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat \
  | cat | cat | cat | cat | cat | cat | cat | cat | awk '{ s += $1 } END { print NR, s }'
seq 1 50 | sed 's/^/x/' | tr x y | sort -r | head -n 5 | sort | tail -n 2 | wc -l
