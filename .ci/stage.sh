#!/bin/sh
# stage.sh NAME CMD... runs one stage of `make test`: it says what it
# starts, lets the command print what it prints, then says how long the
# stage took, so that a stage of minutes never runs without a line naming
# it. Its exit status is the command's.
#
#   == go test: go test -count=1 -race ./...
#   ...
#   == go test 5m02s
set -eu
name=$1
shift
echo "== $name: $*"
start=$(date +%s)
status=0
"$@" || status=$?
secs=$(($(date +%s) - start))
if [ "$secs" -ge 60 ]; then
	took=$(printf '%dm%02ds' $((secs / 60)) $((secs % 60)))
else
	took=${secs}s
fi
if [ "$status" = 0 ]; then
	echo "== $name $took"
else
	echo "== $name failed after $took (exit $status)"
fi
exit "$status"
