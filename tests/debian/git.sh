# git in a temporary repository: init, add, commit with fixed dates and author, branch,
# merge, log --format, diff, tag, stash, gc, fsck.  The ids repeat: dates are fixed.
export GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@pecan GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=ann@pecan
export GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'
export GIT_CONFIG_NOSYSTEM=1 HOME=$PWD
git config --global init.defaultBranch main
git init -q repo && cd repo
seq 1 10 > numbers; echo "hello" > greeting
git add . && git commit -q -m "first"
git checkout -q -b feature
sed -i 's/^5$/five/' numbers; git commit -q -am "five in words"
echo extra > extra; git add extra
GIT_COMMITTER_DATE='1700000100 +0000' GIT_AUTHOR_DATE='1700000100 +0000' git commit -q -m "extra file"
git checkout -q main
echo "hello, world" > greeting
GIT_COMMITTER_DATE='1700000200 +0000' GIT_AUTHOR_DATE='1700000200 +0000' git commit -q -am "greeting"
GIT_COMMITTER_DATE='1700000300 +0000' GIT_AUTHOR_DATE='1700000300 +0000' git merge -q --no-edit feature
git log --format='%H %an %ad %s' --date=unix
git log --graph --oneline --format='%h %s' | cat
git diff HEAD~1 --stat; git diff main~2 main -- greeting
git show --format='%T %P' -s HEAD
git branch -a; git tag -a v1 -m "version 1"; git describe; git rev-parse v1^{commit}
git ls-files -s; git cat-file -t HEAD; git count-objects | cut -d' ' -f1,2
echo dirty >> numbers; git status --short; git stash -q; git status --short; git stash pop -q; git diff --numstat
git checkout -q -- numbers
git gc -q 2>&1; git count-objects -v | grep -E '^(count|in-pack|packs)'
git fsck --full 2>&1 | grep -v '^Checking'; echo "fsck=$?"
git log --format=%s -n1 v1; git rev-list --count HEAD
git merge nonexistent 2>&1; echo "merge bad=$?"
git blame -s greeting | cut -c1-8,9- | sed 's/ *[0-9]*)/)/'
