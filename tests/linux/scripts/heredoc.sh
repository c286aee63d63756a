# Here-documents and command substitution (busybox sh feeds both through pipes).
cat <<END
plain here-document
  with $HOME expanded and $((2 + 3))
END
cat <<'END'
quoted: $HOME not expanded
END
cat <<-END
	tabs stripped
	END
while read a b; do echo "read [$a] [$b]"; done <<END
one 1
two 2 extra
END
n=$(echo hello | wc -c); echo "command substitution: $n"
lines=`seq 3`; echo $lines
for i in $(seq 2 4); do printf '%s;' $i; done; echo
echo "nested: $(echo "$(echo inner)")"
x=$(exit 5); echo "status of substitution: $?"
