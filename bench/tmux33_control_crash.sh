#!/usr/bin/env bash
# tmux 3.3a control-client crash, without muxport: control clients attach and leave while
# sessions are made and killed. Usage: stress.sh TMUX_BINARY [SECONDS]
T=${1:?tmux binary}; S=$(mktemp -d)/s; end=$((SECONDS + ${2:-60}))
ulimit -c unlimited
"$T" -S "$S" -f /dev/null new-session -d -s base
pid=$("$T" -S "$S" display-message -p '#{pid}')
for _ in 1 2; do  # two loops: one client leaves (client-detached) while the other identifies
    ( while [ $SECONDS -lt $end ]; do "$T" -S "$S" -C attach -t base </dev/null >/dev/null 2>&1; done ) &
done
while [ $SECONDS -lt $end ] && kill -0 "$pid" 2>/dev/null; do
    "$T" -S "$S" new-session -d -s x 2>/dev/null; "$T" -S "$S" kill-session -t x 2>/dev/null
done
if kill -0 "$pid" 2>/dev/null; then echo "alive after ${2:-60} s"; "$T" -S "$S" kill-server; else echo "tmux server $pid died after $((SECONDS - end + ${2:-60})) s"; fi
wait
