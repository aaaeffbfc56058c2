#!/usr/bin/env bash
# Documented check: bottui demo through a real SSH session on loopback.
#
# Starts a throwaway sshd on 127.0.0.1:2222 (own host key, own client key,
# nothing of the system's sshd config touched), logs in with a pseudo-terminal
# inside tmux, starts `bottui demo`, switches screens with the keyboard, and
# prints what the remote screen shows. Needs openssh-server, openssh-client
# and tmux (Debian: apt-get install -y openssh-server tmux). Run from the repo
# root with the venv built: bash tests/ssh/run_over_ssh.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'kill "$(cat "$work/sshd.pid" 2>/dev/null)" 2>/dev/null || true; tmux kill-session -t bottui-ssh 2>/dev/null || true; rm -rf "$work"' EXIT
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$work/client_key"
cat "$work/client_key.pub" > "$work/authorized_keys"
chmod 600 "$work/authorized_keys"
mkdir -p /run/sshd
cat > "$work/sshd_config" <<CFG
ListenAddress 127.0.0.1
Port 2222
HostKey $work/host_key
PidFile $work/sshd.pid
AuthorizedKeysFile $work/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
CFG
/usr/sbin/sshd -f "$work/sshd_config"
sleep 0.5
ssh_cmd="ssh -tt -p 2222 -i $work/client_key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR 127.0.0.1"
remote="cd $repo && . .venv/bin/activate && TERM=${TERM_UNDER_TEST:-xterm-256color} bottui demo"
tmux new -d -s bottui-ssh -x 80 -y 24 "$ssh_cmd '$remote'"
sleep 4
show() { echo "---- $1"; tmux capture-pane -t bottui-ssh -p; }
show "over ssh: first screen"
tmux send-keys -t bottui-ssh 3; sleep 1; show "over ssh: 3 (Grants)"
tmux send-keys -t bottui-ssh 5; sleep 1; show "over ssh: 5 (Journal)"
tmux send-keys -t bottui-ssh q; sleep 1.5
if tmux has-session -t bottui-ssh 2>/dev/null; then echo "FAIL: still running after q"; exit 1; fi
echo "OK: bottui demo ran over ssh and quit with q"
