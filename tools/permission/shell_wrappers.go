package permission

import (
	"slices"
	"strings"
)

// This file holds the table of wrappers: programs that run the command
// given in their words (`setsid rm x`, `taskset -c 0 rm x`, `flock f rm
// x`). Each is read with the options of the real program, taken from its
// manual and its source (util-linux for setsid, ionice, taskset, chrt,
// flock, nsenter, unshare, setpriv, runuser and script; coreutils for
// env, nice, nohup, stdbuf, timeout and chroot; procps for watch; and
// the programs' own sources for the rest), so that an option's value is
// never taken for the program and the program never for a value.
//
// Only the wrappers marked transparent let an allow rule for the inner
// command cover them; the others (opaque) change what the command may do
// or how it runs, and an allow rule must name the wrapper. Deny and ask
// rules see the inner command of every wrapper.

// A wrapper says how a program runs the command in its words.
type wrapper struct {
	kind wrapKind
	// opts are the wrapper's options; nil for one that has none.
	opts *optSpec
	// operands is how many operands come before the command: timeout's
	// duration, taskset's mask, flock's file, chroot's root, faketime's
	// time.
	operands int
	// idle lists the options with which the program runs no command
	// from its words: ionice -p and taskset -p act on running processes.
	idle []string
	// shell lists the options whose value is a command line the program
	// runs with a shell (script -c, su -c).
	shell []string
	// programs lists the options whose value is a program it runs
	// (fakeroot --faked, faketime --date-prog, dbus-run-session
	// --dbus-daemon).
	programs []string
	// find, when set, reads the words itself, for a program whose words
	// are not options then a command.
	find func(u *unwrapper, ws []word)
}

// wrappers maps a program's name to how it runs its command. It is filled
// in init: the unwrappers analyze the inner command, which looks wrappers
// up again.
var wrappers map[string]*wrapper

func init() {
	parallel := &wrapper{kind: opaque, find: unwrapParallel}
	proxychains := &wrapper{kind: opaque, find: unwrapProxychains}
	wrappers = map[string]*wrapper{
		// Shell builtins and the kin of env: they only run the command.
		"builtin": {kind: transparent, opts: newOpts("+", "")},
		"command": {kind: transparent, find: unwrapCommand},
		"exec":    {kind: transparent, opts: newOpts("+cla:", "")},
		"env": {kind: transparent, find: unwrapEnv, opts: newOpts("+i0vu:C:a:",
			"ignore-environment null unset: chdir: argv0: debug ignore-signal:: default-signal:: block-signal:: list-signal-handling help version")},
		"nice":    {kind: transparent, find: unwrapNice},
		"nohup":   {kind: transparent, opts: newOpts("+", "help version"), idle: []string{"help", "version"}},
		"timeout": {kind: transparent, operands: 1, idle: []string{"help", "version"}, opts: newOpts("+fk:ps:v", "foreground kill-after: preserve-status signal: verbose help version")},
		"time":    {kind: transparent, opts: newOpts("+af:o:pqvV", "append format: output: portability quiet verbose help version"), idle: []string{"V", "help", "version"}},
		"stdbuf":  {kind: transparent, opts: newOpts("+i:o:e:", "input: output: error: help version"), idle: []string{"help", "version"}},
		"xargs":   {kind: transparent, find: unwrapXargs},
		"eval":    {kind: transparent, find: unwrapEval},
		"sh":      {kind: transparent, find: unwrapShell},
		"bash":    {kind: transparent, find: unwrapShell},
		"dash":    {kind: transparent, find: unwrapShell},
		// Parsed as Bash for deny rules, but their syntax differs.
		"zsh":  {kind: opaque, find: unwrapShell},
		"ksh":  {kind: opaque, find: unwrapShell},
		"mksh": {kind: opaque, find: unwrapShell},
		"ash":  {kind: opaque, find: unwrapShell},
		"fish": {kind: opaque, find: unwrapShell},
		"find": {kind: opaque, find: unwrapFind},
		"trap": {kind: opaque, find: unwrapTrap},

		// Another user, another root, other namespaces.
		"sudo": {kind: opaque, find: unwrapSudo, idle: []string{"e", "edit", "l", "list", "v", "validate", "V", "version", "K", "remove-timestamp"},
			opts: newOpts("+AbEeHiKklnPSsVvu:g:C:D:h:p:r:t:T:U:R:", "askpass background preserve-env:: edit set-home login "+
				"remove-timestamp reset-timestamp list non-interactive preserve-groups stdin shell validate version "+
				"user: group: close-from: chdir: host: prompt: role: type: command-timeout: other-user: chroot: help")},
		"doas":             {kind: opaque, opts: newOpts("+LnsC:u:a:", ""), idle: []string{"C", "L"}, find: unwrapDoas},
		"su":               {kind: opaque, find: unwrapSu, opts: newOpts("c:C:fg:G:lmpPTs:w:hV", "command: session-command: fast login preserve-environment pty no-pty shell: group: supp-group: whitelist-environment: help version"), shell: []string{"c", "command", "C", "session-command"}},
		"runuser":          {kind: opaque, find: unwrapSu, opts: newOpts("c:C:fg:G:lmpPTs:u:w:hV", "command: session-command: fast login preserve-environment pty no-pty shell: group: supp-group: user: whitelist-environment: help version"), shell: []string{"c", "command", "C", "session-command"}},
		"sg":               {kind: opaque, find: unwrapSg},
		"chroot":           {kind: opaque, operands: 1, opts: newOpts("+", "userspec: groups: skip-chdir help version"), idle: []string{"help", "version"}},
		"setpriv":          {kind: opaque, idle: []string{"d", "dump", "list-caps", "h", "help", "V", "version"}, opts: newOpts("+dhV", "dump nnp no-new-privs inh-caps: ambient-caps: list-caps ruid: euid: rgid: egid: reuid: regid: clear-groups keep-groups init-groups groups: bounding-set: securebits: pdeathsig: ptracer: selinux-label: apparmor-profile: landlock-access: landlock-rule: seccomp-filter: reset-env help version")},
		"nsenter":          {kind: opaque, idle: []string{"h", "help", "V", "version"}, opts: newOpts("+ahVt:m::u::i::n::N:p::C::U::T::S:G:r::w::W::ecFZ", "all help version target: mount:: uts:: ipc:: net:: net-socket: pid:: user:: cgroup:: time:: setuid: setgid: root:: wd:: wdns:: env no-fork join-cgroup preserve-credentials keep-caps user-parent follow-context")},
		"unshare":          {kind: opaque, idle: []string{"h", "help", "V", "version"}, opts: newOpts("+fhVmuinpCTUrR:w:S:G:cl:", "help version mount:: uts:: ipc:: net:: pid:: user:: cgroup:: time:: fork kill-child:: forward-signals mount-proc:: mount-binfmt:: map-user: map-users: map-group: map-groups: map-root-user map-current-user map-auto map-subids owner: propagation: setgroups: keep-caps setuid: setgid: root: wd: monotonic: boottime: load-interp: clear-env whitelist-env:")},
		"chpst":            {kind: opaque, opts: newOpts("+u:U:b:e:m:d:o:p:f:c:r:t:/:C:n:l:L:vP012V", "")},
		"firejail":         {kind: opaque, find: unwrapDashWords},
		"systemd-run":      {kind: opaque, idle: []string{"h", "help", "version"}, opts: newOpts("+hH:M:C:u:p:rdRE:tTPqvGS", "help version no-ask-password user system host: machine: capsule: scope unit: property: description: slice: slice-inherit expand-environment: no-block remain-after-exit wait send-sighup service-type: uid: gid: nice: working-directory: same-dir root-directory: same-root-dir setenv: tty pty pty-late pipe quiet verbose output: json: collect shell job-mode: ignore-failure background: no-pager path-property: socket-property: on-active: on-boot: on-startup: on-unit-active: on-unit-inactive: on-calendar: on-timezone-change on-clock-change timer-property:")},
		"fakeroot":         {kind: opaque, programs: []string{"f", "faked"}, idle: []string{"v", "version", "h", "help"}, opts: newOpts("+l:f:i:s:ub:vh", "lib: faked: unknown-is-real fd-base: version help")},
		"dbus-run-session": {kind: opaque, programs: []string{"dbus-daemon"}, idle: []string{"help", "version"}, opts: newOpts("+", "dbus-daemon: config-file: help version")},
		"ssh-agent":        {kind: opaque, idle: []string{"k"}, opts: newOpts("+cDdksE:a:O:P:t:", "")},

		// Scheduling, priorities and limits.
		"setsid":     {kind: opaque, idle: []string{"h", "help", "V", "version"}, opts: newOpts("+cfwhV", "ctty fork wait help version")},
		"ionice":     {kind: opaque, idle: []string{"p", "pid", "P", "pgid", "u", "uid", "h", "help", "V", "version"}, opts: newOpts("+c:n:p:P:u:thV", "class: classdata: pid: pgid: uid: ignore help version")},
		"taskset":    {kind: opaque, operands: 1, idle: []string{"p", "pid", "h", "help", "V", "version"}, opts: newOpts("+apchV", "all-tasks pid cpu-list help version")},
		"chrt":       {kind: opaque, find: unwrapChrt, idle: []string{"p", "pid", "m", "max", "h", "help", "V", "version"}, opts: newOpts("+abdD:efiphmoOP:T:rRU:X:GvV", "all-tasks batch clamp-min: clamp-max: deadline deadline-overrun ext fifo idle pid help max other rr sched-runtime: sched-period: sched-deadline: reset-on-fork reclaim-grub verbose version")},
		"flock":      {kind: opaque, find: unwrapFlock, idle: []string{"h", "help", "V", "version"}, opts: newOpts("+sexnoFuw:E:hV", "shared exclusive unlock nonblocking nb timeout: wait: conflict-exit-code: close no-fork verbose fcntl start: length: fd: help version")},
		"prlimit":    {kind: opaque, idle: []string{"h", "help", "V", "version"}, opts: newOpts("+c::d::e::f::i::l::m::n::q::r::s::t::u::v::x::y::p:o:vVh", "pid: output: as:: core:: cpu:: data:: fsize:: locks:: memlock:: msgqueue:: nice:: nofile:: nproc:: rss:: rtprio:: rttime:: sigpending:: stack:: version help noheadings raw verbose")},
		"numactl":    {kind: opaque, idle: []string{"s", "show", "H", "hardware", "S", "shm", "f", "file", "V", "version"}, opts: newOpts("+ai:w:p:P:c:N:C:m:slbHS:f:o:L:tM:dDI:uTV", "all interleave: weighted-interleave: preferred: preferred-many: cpubind: cpunodebind: physcpubind: membind: show localalloc balancing hardware shm: file: offset: length: strict shmmode: dump dump-nodes shmid: huge touch cpu-compress verify version")},
		"cpulimit":   {kind: opaque, idle: []string{"p", "pid", "e", "exe", "P", "path", "h", "help"}, opts: newOpts("+p:e:P:l:c:m:s:bfqkrvzih", "pid: exe: path: limit: cpu: monitor-forks: signal: background foreground quiet kill restore verbose lazy include-children help")},
		"caffeinate": {kind: opaque, opts: newOpts("+mdhisut:w:", "")},

		// Terminals, displays and logs around the command.
		"unbuffer":  {kind: opaque, find: unwrapUnbuffer},
		"script":    {kind: opaque, find: unwrapScript, shell: []string{"c", "command"}, idle: []string{"h", "help", "V", "version"}, opts: newOpts("aB:c:eE:fI:O:o:qm:T:t::Vh", "append command: echo: return flush force log-in: log-out: log-io: log-timing: logging-format: output-limit: quiet timing:: version help")},
		"watch":     {kind: opaque, find: unwrapWatch, idle: []string{"h", "help", "v", "version"}, opts: newOpts("+bcd::eghn:pq:rtwxv", "beep color no-color differences:: errexit chgexit equexit: exec help interval: no-rerun precise no-title no-wrap no-linewrap version")},
		"xvfb-run":  {kind: opaque, idle: []string{"h", "help"}, opts: newOpts("+ae:f:hn:lp:s:w:", "auto-display auto-servernum error-file: auth-file: help listen-tcp server-num: xauth-protocol: server-args: wait:")},
		"catchsegv": {kind: opaque, idle: []string{"help", "version"}, opts: newOpts("+", "help version")},
		"faketime":  {kind: opaque, operands: 1, programs: []string{"date-prog"}, idle: []string{"h", "help", "v", "version"}, opts: newOpts("+mfhv", "exclude-monotonic disable-shm date-prog: help version")},

		// Tracers and debuggers run their operand.
		"strace":   {kind: opaque, find: unwrapStrace, idle: []string{"h", "help", "V", "version"}, opts: newOpts("+a:Ab:cCdDe:E:fFhiI:knNo:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ", "columns: output-append-mode detach-on: summary-only summary debug daemonize:: daemonised:: daemonized:: env: follow-forks output-separately help instruction-pointer interruptible: kill-on-exit stack-trace:: stack-traces:: stack-trace-frame-limit: syscall-limit: syscall-number arg-names output: summary-syscall-overhead: attach: trace-path: relative-timestamps:: string-limit: summary-sort-by: absolute-timestamps:: timestamps:: syscall-times:: user: summary-columns: no-abbrev version summary-wall-clock strings-in-hex:: const-print-style: pidns-translation successful-only failed-only failing-only seccomp-bpf tips:: argv0: always-show-pid color: trace: trace-fds: abbrev: verbose: raw: signals: status: read: write: fault: inject: kvm: namespace:: quiet:: silent:: silence:: decode-fds:: decode-pids: secontext::")},
		"ltrace":   {kind: opaque, idle: []string{"h", "help", "V", "version"}, opts: newOpts("+Cw:cfhiLrStTVba:A:D:e:F:l:n:o:p:s:u:x:", "align: config: debug: demangle indent: help library: output: version no-signals where:")},
		"valgrind": {kind: opaque, find: unwrapDashWords},

		// Networks.
		"proxychains":  proxychains,
		"proxychains4": proxychains,
		"torsocks":     {kind: opaque, shell: []string{"shell"}, idle: []string{"h", "help", "version"}, opts: newOpts("+u:p:a:P:i6dqh", "user: pass: address: port: isolate ipv6 debug quiet shell help version")},

		// Many commands at once.
		"parallel": parallel,
		"sem":      parallel,
		"busybox":  {kind: opaque, find: unwrapBusybox},
	}
}

// wrapperFor returns how a program runs the command in its words, or nil
// for a program that runs none.
func wrapperFor(name string) *wrapper {
	return wrappers[name]
}

// unwrap finds the command a wrapper runs.
func (w *wrapper) unwrap(u *unwrapper, ws []word) {
	if w.find != nil {
		w.find(u, ws)
		return
	}
	u.options(ws, func(sc optScan) { u.runOperands(ws, sc.rest(len(ws)), w.operands) })
}

// options reads a wrapper's options and records what they run: the
// command lines of its shell options and the programs of its program
// options. Then, unless an idle option was given, it calls then; words it
// cannot read are guessed at for deny rules.
func (u *unwrapper) options(ws []word, then func(optScan)) {
	w := u.w
	opts := w.opts
	if opts == nil {
		opts = noOpts
	}
	sc := opts.read(ws, 1)
	ran := false
	for _, o := range sc.opts {
		switch {
		case !o.hasValue:
		case slices.Contains(w.shell, o.name):
			u.shell(o.value, o.lit && sc.ok)
			ran = true
		case slices.Contains(w.programs, o.name):
			u.p.inner = append(u.p.inner, u.an.callParts([]word{{text: o.value, lit: o.lit}}, u.depth, u.loose)...)
		}
	}
	switch {
	case !sc.ok:
		u.guess(ws[sc.stop:])
	case ran:
	case sc.has(w.idle...):
		u.p.understood = true
	default:
		then(sc)
	}
}

// noOpts is the optSpec of a program without options: any word starting
// with "-" is not read.
var noOpts = newOpts("+", "")

// runOperands runs the words from i on, after skip operands of the
// wrapper's own: a value that is not literal there may split into more
// words, and leaves the wrapper guessed at.
func (u *unwrapper) runOperands(ws []word, i, skip int) {
	for k := i; k < min(i+skip, len(ws)); k++ {
		if !ws[k].lit {
			u.guess(ws[i:])
			return
		}
	}
	u.run(ws[min(i+skip, len(ws)):], false)
}

func unwrapEnv(u *unwrapper, ws []word) {
	u.options(ws, func(sc optScan) {
		i := sc.rest(len(ws))
		for i < len(ws) && ws[i].lit && ws[i].text == "-" { // same as -i
			next := u.w.opts.read(ws, i+1)
			if !next.ok {
				u.guess(ws[next.stop:])
				return
			}
			i = next.rest(len(ws))
		}
		var assigns []*part
		for ; i < len(ws) && strings.Contains(ws[i].text, "="); i++ {
			name, _, _ := strings.Cut(ws[i].text, "=")
			if !ws[i].lit || !isName(name) {
				u.guess(ws[i:])
				return
			}
			assigns = append(assigns, u.an.assignPart(ws[i], name))
		}
		u.p.inner = append(u.p.inner, assigns...)
		u.run(ws[i:], true) // env alone prints the environment
	})
}

var commandOpts = newOpts("+pvV", "")

func unwrapCommand(u *unwrapper, ws []word) {
	sc := commandOpts.read(ws, 1)
	switch {
	case !sc.ok:
		u.guess(ws[sc.stop:])
	case sc.has("v", "V"):
		// command -v only looks the name up.
		u.p.understood, u.p.harmless = true, true
	default:
		u.run(ws[sc.rest(len(ws)):], false)
	}
}

func unwrapSudo(u *unwrapper, ws []word) {
	u.options(ws, func(sc optScan) {
		i := sc.rest(len(ws))
		for ; i < len(ws) && ws[i].lit && strings.Contains(ws[i].text, "="); i++ {
			name, _, _ := strings.Cut(ws[i].text, "=")
			u.p.inner = append(u.p.inner, u.an.assignPart(ws[i], name))
		}
		if sc.has("s", "shell", "i", "login") && i < len(ws) {
			// -s and -i run the command through a shell.
			u.shell(joinWords(ws[i:]), false)
			return
		}
		u.run(ws[i:], false)
	})
}

// unwrapDoas: doas -s runs a shell, and takes no command.
func unwrapDoas(u *unwrapper, ws []word) {
	u.options(ws, func(sc optScan) {
		if sc.has("s") {
			return // understood stays false: a shell reads its input
		}
		u.run(ws[sc.rest(len(ws)):], false)
	})
}

// unwrapSu reads su and runuser, whose options may come among their
// operands: -c (and --session-command) hand a command line to the user's
// shell; runuser -u USER runs its operands as a command; otherwise the
// operands are the user and words for the user's shell, which are not
// followed.
func unwrapSu(u *unwrapper, ws []word) {
	u.options(ws, func(sc optScan) {
		if !sc.has("u", "user") {
			return // a login shell: not understood
		}
		cmd := make([]word, 0, len(sc.operands))
		for _, i := range sc.operands {
			cmd = append(cmd, ws[i])
		}
		u.run(cmd, false)
	})
}

// unwrapSg reads sg [-] GROUP [-c] COMMAND: sg runs the one word COMMAND
// with sh -c and leaves out the words after it.
func unwrapSg(u *unwrapper, ws []word) {
	i := 1
	if i < len(ws) && (ws[i].text == "-" || ws[i].text == "-l") {
		i++
	}
	if i >= len(ws) || !ws[i].lit || strings.HasPrefix(ws[i].text, "-") {
		u.guess(ws[min(i, len(ws)):])
		return
	}
	i++ // the group
	if len(ws)-i > 1 && ws[i].text == "-c" {
		i++
	}
	if i < len(ws) {
		u.shell(ws[i].text, ws[i].lit)
	}
}

// unwrapChrt reads chrt [OPTIONS] [PRIORITY] COMMAND: the first operand is
// the priority when it is a number and a word follows it.
func unwrapChrt(u *unwrapper, ws []word) {
	u.options(ws, func(sc optScan) {
		i := sc.rest(len(ws))
		if i+1 < len(ws) && ws[i].lit && isInt(ws[i].text) && !strings.HasPrefix(ws[i].text, "-") {
			i++
		}
		u.runOperands(ws, i, 0)
	})
}

// unwrapFlock reads flock [OPTIONS] FILE COMMAND… and flock [OPTIONS]
// FILE -c COMMAND-LINE; recent versions also take -c before the file.
func unwrapFlock(u *unwrapper, ws []word) {
	sc := u.w.opts.read(ws, 1)
	if !sc.ok && sc.stop < len(ws) {
		if line, at, ok := commandOption(ws, sc.stop); ok {
			u.shell(line.text, false)
			u.guess(ws[at+1:])
			return
		}
	}
	u.options(ws, func(sc optScan) {
		i := sc.rest(len(ws)) + 1 // the file, or the descriptor
		if line, _, ok := commandOption(ws, i); ok {
			u.shell(line.text, line.lit)
			return
		}
		u.runOperands(ws, i-1, 1)
	})
}

// commandOption reads flock's -c LINE, --command LINE or --command=LINE
// at ws[i], and returns the line and the index of the word that held it.
func commandOption(ws []word, i int) (word, int, bool) {
	if i >= len(ws) || !ws[i].lit {
		return word{}, i, false
	}
	switch s := ws[i].text; {
	case s == "-c" || s == "--command":
		if i+1 < len(ws) {
			return ws[i+1], i + 1, true
		}
	case strings.HasPrefix(s, "--command="):
		return word{text: strings.TrimPrefix(s, "--command="), lit: true}, i, true
	}
	return word{}, i, false
}

// unwrapScript reads script [OPTIONS] [FILE] [-- COMMAND…]: -c runs a
// command line, and newer versions join the words after "--" into one.
// Without either it runs an interactive shell.
func unwrapScript(u *unwrapper, ws []word) {
	u.options(ws, func(sc optScan) {
		if sc.dashdash < 0 || sc.dashdash+1 >= len(ws) {
			return // an interactive shell: not understood
		}
		cmd := ws[sc.dashdash+1:]
		u.shell(joinWords(cmd), allLiteral(cmd))
	})
}

// unwrapWatch reads watch [OPTIONS] COMMAND…: it joins the words with
// spaces and runs them with sh -c, or with -x runs them as they are.
func unwrapWatch(u *unwrapper, ws []word) {
	u.options(ws, func(sc optScan) {
		cmd := ws[sc.rest(len(ws)):]
		if sc.has("x", "exec") || len(cmd) == 0 {
			u.run(cmd, false)
			return
		}
		u.shell(joinWords(cmd), allLiteral(cmd))
	})
}

// unwrapStrace reads strace, whose -o '|COMMAND' (or '!COMMAND') pipes
// its output to a command line run with sh -c.
func unwrapStrace(u *unwrapper, ws []word) {
	u.options(ws, func(sc optScan) {
		u.run(ws[sc.rest(len(ws)):], false)
		for _, o := range sc.opts {
			if (o.name == "o" || o.name == "output") && (strings.HasPrefix(o.value, "|") || strings.HasPrefix(o.value, "!")) {
				u.shell(o.value[1:], false)
			}
		}
	})
}

// unwrapBusybox: busybox APPLET runs the applet as the program of that
// name; busybox --list and --install run none.
func unwrapBusybox(u *unwrapper, ws []word) {
	if len(ws) > 1 && ws[1].lit && strings.HasPrefix(ws[1].text, "-") {
		u.guess(ws[2:])
		return
	}
	u.run(ws[1:], false)
}

// unwrapUnbuffer reads unbuffer [-p] PROGRAM: the words go to Expect's
// spawn, which reads options of its own, one dash each, before the
// program.
func unwrapUnbuffer(u *unwrapper, ws []word) {
	i := 1
	if i < len(ws) && ws[i].text == "-p" {
		i++
	}
	for ; i < len(ws) && strings.HasPrefix(ws[i].text, "-"); i++ {
		switch strings.TrimPrefix(ws[i].text, "-") {
		case "console", "noecho", "nottycopy", "nottyinit", "pty":
		case "ignore", "leaveopen", "open":
			i++
		default:
			u.guess(ws[i:])
			return
		}
	}
	u.runOperands(ws, min(i, len(ws)), 0)
}

// unwrapDashWords reads the wrappers whose options are single words
// starting with a dash, whatever they hold: firejail's --name and
// --name=VALUE, valgrind's --name=VALUE, -q and -v. The program is the
// first word without a dash, or the one after "--".
func unwrapDashWords(u *unwrapper, ws []word) {
	i := 1
	for ; i < len(ws) && strings.HasPrefix(ws[i].text, "-"); i++ {
		if !ws[i].lit {
			u.guess(ws[i:])
			return
		}
		if ws[i].text == "--" {
			i++
			break
		}
	}
	u.runOperands(ws, min(i, len(ws)), 0)
}

// unwrapProxychains reads proxychains4 [-q] [-f FILE] COMMAND: up to two
// words starting with "-", by their second letter, -f taking the next
// word; any other such word is the program.
func unwrapProxychains(u *unwrapper, ws []word) {
	i := 1
	for range 2 {
		if i >= len(ws) || len(ws[i].text) < 2 || ws[i].text[0] != '-' {
			break
		}
		if !ws[i].lit {
			u.guess(ws[i:])
			return
		}
		switch ws[i].text[1] {
		case 'q':
			i++
		case 'f':
			i += 2
		}
		if i > len(ws) {
			break
		}
	}
	u.runOperands(ws, min(i, len(ws)), 0)
}

// parallelOpts are the options of GNU parallel (and sem, which is parallel
// --semaphore) that take the next word as their value; its options are
// read by Perl's Getopt::Long, so --name=value works too.
var parallelOpts = map[string]bool{
	"-j": true, "--jobs": true, "-P": true, "--max-procs": true, "-S": true, "--sshlogin": true,
	"--sshloginfile": true, "--slf": true, "-a": true, "--arg-file": true, "-d": true, "--delimiter": true,
	"-E": true, "--eof": true, "-I": true, "-n": true, "--max-args": true, "-N": true, "-L": true,
	"--max-lines": true, "-C": true, "--colsep": true, "--tmpdir": true, "--joblog": true,
	"--results": true, "--res": true, "--timeout": true, "--delay": true, "--retries": true, "--halt": true,
	"--memfree": true, "--load": true, "--basefile": true, "--bf": true, "--workdir": true, "--wd": true,
	"--env": true, "--tagstring": true, "--tag-string": true, "--return": true, "--transferfile": true,
	"--tf": true, "--semaphorename": true, "--id": true, "--progress-bar": false, "--sshdelay": true,
	"--nice": true, "--shebang-wrap": false, "--tmux": false, "--limit": true, "--block": true,
	"--block-size": true, "--pipe": false, "--header": true, "--cat": false, "--fifo": false,
	"--rpl": true, "--plus": false, "--tee": false,
}

// unwrapParallel reads GNU parallel and sem: options, then the command,
// up to ":::" or "::::". parallel joins the command's words with spaces
// and runs them with a shell, adding the arguments; with no command each
// argument after ":::" is a command line of its own.
func unwrapParallel(u *unwrapper, ws []word) {
	i := 1
	for ; i < len(ws) && strings.HasPrefix(ws[i].text, "-"); i++ {
		s := ws[i].text
		if !ws[i].lit {
			u.guess(ws[i:])
			return
		}
		if s == "--" {
			i++
			break
		}
		name, _, hasVal := strings.Cut(s, "=")
		takes, known := parallelOpts[name]
		switch {
		case known && takes && !hasVal:
			i++
		case known, len(s) == 2 && strings.Contains(parallelFlags, s[1:]):
		case strings.HasPrefix(s, "--") && hasVal:
			// An option this table lacks, with its value in the word.
		default:
			// It cannot be told whether the word after it is its value.
			u.guess(ws[i:])
			return
		}
	}
	i = min(i, len(ws))
	end := i
	for end < len(ws) && !strings.HasPrefix(ws[end].text, ":::") {
		end++
	}
	cmd := ws[i:end]
	if len(cmd) > 0 {
		u.shell(joinWords(cmd), false)
		u.p.understood = false // the arguments are added to the command line
		return
	}
	for _, a := range ws[min(end+1, len(ws)):] {
		if strings.HasPrefix(a.text, ":::") {
			break
		}
		u.shell(a.text, false)
	}
	u.p.understood = false
}

// parallelFlags are parallel's one-letter options that take no value.
const parallelFlags = "kuvqgXmrsp0"

func allLiteral(ws []word) bool {
	return !slices.ContainsFunc(ws, func(w word) bool { return !w.lit })
}
