#!/bin/sh
# Captures docs/tui.png from a real terminal session: builds agview, runs
# "agview demo" in a tmux window of COLS x ROWS, waits until the screen shows
# READY (when set), types KEYS, waits until the screen shows PATTERN,
# captures the pane with its colours and renders it with the program beside
# this script. Needs tmux, Go and the DejaVu fonts (Debian: fonts-dejavu-core).
#
# READY lets the keys wait for a moment of the run (the run interrupted, say)
# rather than be typed as soon as the demo starts; PATTERN should then be
# something the keys bring on screen, so that the capture shows their effect.
set -eu
cd "$(dirname "$0")"
COLS=${COLS:-120}
ROWS=${ROWS:-40}
SEED=${SEED:-1}
READY=${READY:-}
KEYS=${KEYS:-}
PATTERN=${PATTERN:-errored}
tmp=$(mktemp -d)
trap 'tmux kill-session -t agview-shot 2>/dev/null || true; rm -rf "$tmp"' EXIT
(cd ../.. && go build -o "$tmp/agview" ./cmd/agview)
tmux kill-session -t agview-shot 2>/dev/null || true
tmux new-session -d -s agview-shot -x "$COLS" -y "$ROWS" "TERM=xterm-256color $tmp/agview demo --seed $SEED; sleep 60"
# waitfor waits until the screen shows $1, for about 30 s at most.
waitfor() {
	i=0
	until tmux capture-pane -p -t agview-shot | grep -q -- "$1"; do
		i=$((i + 1))
		[ "$i" -lt 1500 ] || { echo "capture.sh: the screen never showed $1" >&2; exit 1; }
		sleep 0.02
	done
}
[ -z "$READY" ] || waitfor "$READY"
for k in $KEYS; do
	sleep 0.3
	tmux send-keys -t agview-shot "$k"
done
waitfor "$PATTERN"
tmux capture-pane -e -p -t agview-shot > "$tmp/screen.ansi"
go run . -cols "$COLS" -rows "$ROWS" -o ../tui.png < "$tmp/screen.ansi"
echo "wrote docs/tui.png"
