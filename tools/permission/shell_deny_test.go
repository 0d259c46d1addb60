package permission

import (
	"context"
	"strings"
	"testing"
)

// denyPolicy denies programs and subcommands by name, allows a few
// commands, and asks for the rest.
func denyPolicy(t *testing.T) Policy {
	t.Helper()
	p, err := NewPolicy("ask",
		[]string{"Bash(git status:*)", "Bash(go test:*)", "Bash(ls:*)", "Bash(timeout:*)"},
		nil,
		[]string{"Bash(rm:*)", "Bash(git push:*)", "Bash(npm publish:*)", "Bash(make deploy:*)",
			"Bash(cargo publish:*)", "Bash(docker push:*)", "Bash(kubectl delete:*)", "Bash(go generate:*)",
			"Bash(terraform apply:*)", "Bash(pnpm publish:*)", "Bash(yarn publish:*)"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// verdict is what a policy says of a command: "deny", "allow", "ask" (a
// rule or the mode asks: a posture may answer), or "person" (only a
// person may allow it, every time).
func verdict(p Policy, cmd string) string {
	d, rule := p.Decide("bash", false, bashArgs(cmd))
	switch {
	case d == Ask && rule != nil && rule.strict:
		return "person"
	default:
		return d.String()
	}
}

// TestDenyWhatRuns checks that deny rules judge the command that will
// run: through each wrapper that runs its words, read with the options of
// the real program, and with the global options of the program the rule
// names left out.
func TestDenyWhatRuns(t *testing.T) {
	p := denyPolicy(t)
	tests := []struct {
		cmd, want string
	}{
		// Wrappers, each with options that take a value.
		{"setsid rm f1", "deny"},
		{"setsid -w rm x", "deny"},
		{"setsid --fork --wait rm x", "deny"},
		{"setsid -cfw rm x", "deny"},
		{"nohup rm x", "deny"},
		{"nohup -- rm x", "deny"},
		{"nice -n 5 rm x", "deny"},
		{"nice -5 rm x", "deny"},
		{"nice --adjustment=3 rm x", "deny"},
		{"ionice -c3 rm f2", "deny"},
		{"ionice -c3 -n7 rm x", "deny"},
		{"ionice -c 3 -n 7 rm x", "deny"},
		{"ionice --class idle rm x", "deny"},
		{"ionice --class 3 --classd 7 --ign rm x", "deny"},
		// getopt_long refuses an ambiguous prefix (--class, --classdata).
		{"ionice --cla 3 rm x", "person"},
		{"ionice -t -c2 -n0 rm x", "deny"},
		{"taskset -c 0 rm f3", "deny"},
		{"taskset 0x1 rm x", "deny"},
		{"taskset -a 0x1 rm x", "deny"},
		{"taskset --cpu-list 0-3 rm x", "deny"},
		{"chrt -f 10 rm x", "deny"},
		{"chrt 10 rm x", "deny"},
		{"chrt -b 0 rm x", "deny"},
		{"chrt --idle 0 rm x", "deny"},
		{"chrt -o rm x", "deny"},
		{"chrt -T 100 -P 200 -d 0 rm x", "deny"},
		{"flock lockf rm f4", "deny"},
		{"flock -w 5 f rm x", "deny"},
		{"flock -n -E 3 f rm x", "deny"},
		{"flock --timeout=5 f rm x", "deny"},
		{"flock f -c 'rm x'", "deny"},
		{"flock f --command 'rm x'", "deny"},
		{"flock -c 'rm x' f", "deny"},
		{"stdbuf -oL rm x", "deny"},
		{"stdbuf -o L -e 0 rm x", "deny"},
		{"stdbuf --output=L rm x", "deny"},
		{"timeout -s KILL 5 rm x", "deny"},
		{"timeout 5s rm x", "deny"},
		{"timeout --kill-after=1 5 rm x", "deny"},
		{"timeout -k1 -sTERM 5 rm x", "deny"},
		{"env rm x", "deny"},
		{"env -i -u HOME rm x", "deny"},
		{"env -C /tmp rm x", "deny"},
		{"env --chdir=/tmp A=1 rm x", "deny"},
		{"env - rm x", "deny"},
		{"time rm x", "deny"},
		{"command time -p -o out rm x", "deny"},
		{"command rm x", "deny"},
		{"exec -a name rm x", "deny"},
		{"echo x | xargs rm", "deny"},
		{"xargs -0 -n1 rm < list", "deny"},
		{"sudo rm x", "deny"},
		{"sudo -u root -E rm x", "deny"},
		{"sudo --user=root --preserve-env=PATH rm x", "deny"},
		{"sudo -s rm x", "deny"},
		{"doas -u root rm x", "deny"},
		{"busybox rm f5", "deny"},
		{"busybox sh -c 'rm x'", "deny"},
		{"/bin/busybox rm x", "deny"},
		{"unbuffer rm x", "deny"},
		{"unbuffer -p rm x", "deny"},
		{"script -c 'rm x'", "deny"},
		{"script -q -c 'rm x' /dev/null", "deny"},
		{"script /dev/null -c 'rm x'", "deny"},
		{"script --command='rm x' log", "deny"},
		{"script -q log -- rm x", "deny"},
		{"nsenter -t 1 -m rm x", "deny"},
		{"nsenter --mount=/proc/1/ns/mnt rm x", "deny"},
		{"nsenter -t 1 -m -u -i -n -p rm x", "deny"},
		{"unshare -r rm x", "deny"},
		{"unshare --map-root-user --mount-proc rm x", "deny"},
		{"unshare -R /x -w / rm x", "deny"},
		{"setpriv --reuid=1000 --init-groups rm x", "deny"},
		{"setpriv --nnp rm x", "deny"},
		{"setpriv --reuid 1000 rm x", "deny"},
		{"runuser -u nobody rm x", "deny"},
		{"runuser -u nobody -- rm -rf x", "deny"},
		{"runuser nobody -c 'rm x'", "deny"},
		{"su -c 'rm x'", "deny"},
		{"su root -c 'rm x'", "deny"},
		{"su - root --command='rm x'", "deny"},
		{"chpst -u nobody rm x", "deny"},
		{"chpst -n 5 -/ /x rm x", "deny"},
		{"strace rm x", "deny"},
		{"strace -f -o out -e trace=file rm x", "deny"},
		{"strace -o '|rm x' true", "deny"},
		{"ltrace -o out -l lib rm x", "deny"},
		{"watch rm x", "deny"},
		{"watch -n 1 -d rm x", "deny"},
		{"watch -x rm x", "deny"},
		{"watch 'rm x'", "deny"},
		{"parallel rm ::: a b", "deny"},
		{"parallel -j4 --tag rm ::: a", "deny"},
		{"parallel -j 4 rm ::: a", "deny"},
		{"parallel ::: 'rm x'", "deny"},
		{"sem -j 2 rm x", "deny"},
		{"firejail rm x", "deny"},
		{"firejail --private --net=none rm x", "deny"},
		{"systemd-run rm x", "deny"},
		{"systemd-run --user -p X=Y -u unit rm x", "deny"},
		{"caffeinate -i -t 10 rm x", "deny"},
		{"proxychains rm x", "deny"},
		{"proxychains4 -q -f conf rm x", "deny"},
		{"torsocks -i rm x", "deny"},
		{"torsocks -a 1.2.3.4 -P 9050 rm x", "deny"},
		{"catchsegv rm x", "deny"},
		{"valgrind rm x", "deny"},
		{"valgrind --tool=memcheck -q -- rm x", "deny"},
		{"cpulimit -l 50 rm x", "deny"},
		{"cpulimit -l 50 -- rm x", "deny"},
		{"numactl --interleave=all rm x", "deny"},
		{"numactl -N 0 --membind 0 rm x", "deny"},
		{"prlimit --nofile=100 rm x", "deny"},
		{"prlimit -n100 --cpu=10 rm x", "deny"},
		{"faketime '2020-01-01' rm x", "deny"},
		{"faketime -f '+1d' rm x", "deny"},
		{"faketime --date-prog rm 2020 true", "deny"},
		{"fakeroot rm x", "deny"},
		{"fakeroot -u -- rm x", "deny"},
		{"fakeroot --faked rm true", "deny"},
		{"sg wheel 'rm x'", "deny"},
		{"sg - wheel -c 'rm x'", "deny"},
		{"dbus-run-session rm x", "deny"},
		{"dbus-run-session --config-file=c -- rm x", "deny"},
		{"dbus-run-session --dbus-daemon=rm true", "deny"},
		{"ssh-agent rm x", "deny"},
		{"ssh-agent -a sock -t 60 rm x", "deny"},
		{"xvfb-run rm x", "deny"},
		{"xvfb-run -a -s '-screen 0 1x1x8' rm x", "deny"},
		{"xvfb-run --server-args='-x' rm x", "deny"},
		{"setsid nice ionice -c3 taskset -c 0 flock f rm x", "deny"},

		// Wrappers that run no command from their words.
		{"ionice -p 1", "ask"},
		{"taskset -p 1", "ask"},
		{"chrt -p 1", "ask"},
		{"setsid --help", "ask"},

		// Global options of the programs rules name.
		{"git -C . push origin b1", "deny"},
		{"git -c k=v push origin b2", "deny"},
		{"git --no-pager push origin b3", "deny"},
		{"git -p push", "deny"},
		{"git --paginate push", "deny"},
		{"git -P push", "deny"},
		{"git --git-dir=.git push", "deny"},
		{"git --git-dir .git push", "deny"},
		{"git --work-tree=. push", "deny"},
		{"git --work-tree . push", "deny"},
		{"git --namespace=x push", "deny"},
		{"git --namespace x push", "deny"},
		{"git --bare push", "deny"},
		{"git --exec-path=/usr/lib/git-core push", "deny"},
		{"git --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs push", "deny"},
		{"git --no-replace-objects --no-optional-locks --no-lazy-fetch --no-advice push", "deny"},
		{"git --config-env=k.v=ENV push", "deny"},
		{"git --config-env k.v=ENV push", "deny"},
		{"git --attr-source=HEAD push", "deny"},
		{"git --attr-source HEAD push", "deny"},
		{"git -C a -C b -c x.y=1 --no-pager push", "deny"},
		{"/usr/bin/git -C . push", "deny"},
		{"GIT -C . push", "deny"},
		{`git -C "$d" push`, "deny"},
		{"sudo git -C . push", "deny"},
		{"git --unknown-option push", "deny"},
		{"go -C sub generate ./...", "deny"},
		{"go -C=sub generate", "deny"},
		{"npm --prefix x publish", "deny"},
		{"npm -C x publish", "deny"},
		{"npm --workspace=a publish", "deny"},
		{"npm -w a -g --silent publish", "deny"},
		{"npm --some-config value publish", "deny"},
		{"pnpm -C x --filter a publish", "deny"},
		{"yarn --cwd x publish", "deny"},
		{"make -C dir deploy", "deny"},
		{"make -f other.mk deploy", "deny"},
		{"make -j 4 deploy", "deny"},
		{"make -j4 -k deploy", "deny"},
		{"make --directory=dir --file other.mk deploy", "deny"},
		{"cargo +nightly publish", "deny"},
		{"cargo -C dir publish", "deny"},
		{"cargo --manifest-path x/Cargo.toml publish", "deny"},
		{"cargo -Zunstable-options --color always publish", "deny"},
		{"docker --context prod push img", "deny"},
		{"docker -H tcp://x -c prod --config d push img", "deny"},
		{"kubectl --context prod -n ns delete pod x", "deny"},
		{"kubectl --kubeconfig k --namespace=ns delete pod x", "deny"},
		{"terraform -chdir=infra apply", "deny"},

		// Allow rules stay as strict as they were: an option before the
		// subcommand can run code.
		{"git status", "allow"},
		{"git -C . status", "ask"},
		{"git -c core.pager=less status", "ask"},
		{"go test ./...", "allow"},
		{"go -C sub test ./...", "ask"},
		{"timeout 5 git status", "allow"},
		{"setsid go test", "ask"},

		// A denied program where it may run: only a person decides.
		{"somewrapper rm -rf x", "person"},
		{"foo --exec rm", "person"},
		{"foo --exec=rm", "person"},
		{"foo --exec 'rm -rf x'", "person"},
		{"make CC=rm", "person"},
		{"foo git push", "person"},
		{"foo git -C . push", "person"},
		{"foo /bin/rm x", "person"},
		{"docker run img rm -rf /x", "person"},
		{"git bisect run rm x", "person"},
		{"git -c core.pager='rm -rf ~' log", "person"},
		{"git -c core.pager='rm -rf ~' status", "person"},
		{"git -c alias.st='!rm -rf ~' st", "person"},
		{"flock -w $T f rm x", "person"},
		{"bash script.sh rm", "person"},
		{"ssh host rm -rf x", "person"},
		{"python3 -c 'import os' rm", "person"},

		// Not a denied program, or in a place that is data.
		{"grep rm file", "ask"},
		{"grep -r 'rm -rf' .", "ask"},
		{"echo rm -rf x", "allow"},
		{"ls rm", "allow"},
		{"cat rm", "ask"},
		{"man rm", "ask"},
		{"git rm file", "ask"},
		{"git grep rm", "ask"},
		{"git commit -m 'rm old files'", "ask"},
		{"git log -- rm", "ask"},
		{"foo git status", "ask"},
		{"foo rmdir x", "ask"},
		{"foo --rm x", "ask"},
		{"npm rm left-pad", "ask"},
		{"docker rm container", "ask"},
		{"x=rm; $x -rf y", "ask"},
		{"python3 x.py", "ask"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			if got := verdict(p, tt.cmd); got != tt.want {
				t.Errorf("%q: %s, want %s\n%s", tt.cmd, got, tt.want, describe(tt.cmd))
			}
		})
	}
}

// TestDenyNoRulesNoSuspicion: without a deny rule naming the program, a
// program's arguments are not looked at.
func TestDenyNoRulesNoSuspicion(t *testing.T) {
	p, err := NewPolicy("ask", []string{"Bash(somewrapper:*)"}, nil, []string{"Bash(curl:*)"})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdict(p, "somewrapper rm -rf x"); got != "allow" {
		t.Errorf("got %s, want allow", got)
	}
	if got := verdict(p, "somewrapper curl evil"); got != "person" {
		t.Errorf("got %s, want person", got)
	}
}

// TestDenySuspicionUnattended: a denied program where it may run is
// refused with no one to ask, in every posture, and the refusal says why.
func TestDenySuspicionUnattended(t *testing.T) {
	for _, posture := range []Posture{PostureAsk, PostureAuto, PostureYolo} {
		var refused []Refusal
		c := &Checker{Policy: denyPolicy(t), Posture: posture, Refused: func(r Refusal) { refused = append(refused, r) }}
		v := c.Check(context.Background(), Request{Tool: "bash", Args: bashArgs("somewrapper rm -rf x")})
		if v.Allowed || len(refused) != 1 || refused[0].Posture != PostureAsk || !strings.Contains(v.Reason, `"rm"`) ||
			!strings.Contains(v.Reason, "only a person may allow") {
			t.Errorf("posture %d: %+v, refused %+v", posture, v, refused)
		}
		// Asked when someone can answer, and the answer is not kept.
		ap := &fakeApprover{answers: []Answer{AnswerSession, AnswerDeny}}
		c = &Checker{Policy: denyPolicy(t), Posture: posture, Approver: ap}
		cmd := Request{Tool: "bash", Args: bashArgs("somewrapper rm -rf x")}
		if v := c.Check(context.Background(), cmd); !v.Allowed || !v.Asked {
			t.Errorf("posture %d: %+v", posture, v)
		}
		if v := c.Check(context.Background(), cmd); v.Allowed || !v.Asked {
			t.Errorf("posture %d: the answer was kept: %+v", posture, v)
		}
		if len(ap.prompts) == 0 || !strings.Contains(ap.prompts[0].Why, "may run it") {
			t.Errorf("posture %d: prompts %+v", posture, ap.prompts)
		}
	}
}
