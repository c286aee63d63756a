# perl one-liners (perl-base: no modules beyond it).
seq 1 10 > n
perl -ne 'print if $_ % 3 == 0' n
perl -lane '$s += $F[0]; END { print "sum=$s" }' n
perl -pe 's/(\d+)/$1*$1/e' n | tr '\n' ' '; echo
echo 'b=2 a=1 c=3' | perl -lne 'my %h = /(\w)=(\d)/g; print join ",", map { "$_$h{$_}" } sort keys %h'
perl -e 'printf "%.4f %s %d %s\n", atan2(1, 1) * 4, join("-", reverse 1..5), 2**40, lc "ABC"'
perl -e 'my @a = sort { $b <=> $a } (3, 11, 2); print "@a\n"; print scalar(@a), "\n"'
perl -le 'print for grep { !($_ % 7) } 1..30'
perl -e 'srand(1); print join(" ", map { int rand 100 } 1..3), "\n"' | wc -w
perl -le 'print unpack("H*", pack("NnC", 1, 2, 3)); print length pack("w", 300)'
perl -le '$_ = "Hello World"; tr/a-z/A-Z/; print; print scalar reverse $_'
perl -le 'print sprintf("%05.1f|%-4s|%x|%o|%e", 3.14159, "ab", 255, 8, 1234.5)'
perl -e 'open(my $f, ">", "out") or die; print $f "line $_\n" for 1..3; close $f; open($f, "<", "out"); my @l = <$f>; print scalar(@l), " $l[2]"'
perl -e 'opendir(my $d, ".") or die; print join(" ", sort grep { !/^\./ } readdir $d), "\n"'
perl -le 'my $pid = fork; if (!$pid) { exit 7 } waitpid($pid, 0); print "child ", $? >> 8'
perl -le '$SIG{USR1} = sub { print "got USR1" }; kill "USR1", $$; print "after"'
perl -le 'my $out = `echo backtick`; chomp $out; print "[$out] ", $? >> 8'
perl -e 'die "dying\n"' 2>&1; echo "perl die=$?"
perl -le 'local $/; open my $f, "<", "n"; my $c = <$f>; print length $c; print time > 1e9 ? "time ok" : "time bad"'
perl -le 'print join ",", map { sprintf "%s=%s", $_, (stat "n")[$_] } 7' 
