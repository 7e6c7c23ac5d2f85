#!/bin/sh
# Captures docs/tui.png from a real terminal session: builds agview, runs
# "agview demo" in a tmux window of COLS x ROWS, types KEYS, waits until the
# screen shows PATTERN (mid-run: some subagents done, others streaming),
# captures the pane with its colours and renders it with the program beside
# this script. Needs tmux, Go and the DejaVu fonts (Debian: fonts-dejavu-core).
set -eu
cd "$(dirname "$0")"
COLS=${COLS:-120}
ROWS=${ROWS:-40}
SEED=${SEED:-1}
KEYS=${KEYS:-}
PATTERN=${PATTERN:-errored}
tmp=$(mktemp -d)
trap 'tmux kill-session -t agview-shot 2>/dev/null || true; rm -rf "$tmp"' EXIT
(cd ../.. && go build -o "$tmp/agview" ./cmd/agview)
tmux kill-session -t agview-shot 2>/dev/null || true
tmux new-session -d -s agview-shot -x "$COLS" -y "$ROWS" "TERM=xterm-256color $tmp/agview demo --seed $SEED; sleep 60"
for k in $KEYS; do
	sleep 0.3
	tmux send-keys -t agview-shot "$k"
done
i=0
until tmux capture-pane -p -t agview-shot | grep -q -- "$PATTERN"; do
	i=$((i + 1))
	[ "$i" -lt 400 ] || { echo "capture.sh: the screen never showed $PATTERN" >&2; exit 1; }
	sleep 0.02
done
tmux capture-pane -e -p -t agview-shot > "$tmp/screen.ansi"
go run . -cols "$COLS" -rows "$ROWS" -o ../tui.png < "$tmp/screen.ansi"
echo "wrote docs/tui.png"
