package permission

import (
	"path"
	"strings"
)

// This file strips the global options of the programs rules commonly
// name, so that deny and ask rules see the subcommand that will run:
// `git -C . push`, `git -c k=v push` and `git --no-pager push` are all
// `git push` to `deny = ["Bash(git push:*)"]`. Allow rules do not use
// it: an option before the subcommand can run code (`git -c
// core.pager=…`, `git --exec-path=…`, `make -f`), so `Bash(git status:*)`
// still covers only commands spelled `git status …`.
//
// Each program's options are those of its own parser (git.c's
// handle_options, cmd/go's -C, npm's nopt configuration, GNU make, cargo's
// and docker's and kubectl's command-line definitions). A word the reader
// does not know is read both ways, as a flag and as an option taking the
// next word: the program may take either, and a deny rule matches if any
// reading does.

// A globalSpec says how a program reads the options before its
// subcommand.
type globalSpec struct {
	opts *optSpec
	// oneWord are prefixes of words that are options whole: terraform's
	// -chdir=DIR, rustup's cargo +TOOLCHAIN.
	oneWord []string
}

// globalSpecs holds the programs whose global options are stripped, by
// base name.
var globalSpecs = map[string]*globalSpec{
	"git": {opts: newOpts("+C:c:pP", "exec-path:: paginate no-pager no-lazy-fetch no-replace-objects git-dir: namespace: "+
		"work-tree: bare config-env: literal-pathspecs no-literal-pathspecs glob-pathspecs noglob-pathspecs "+
		"icase-pathspecs no-optional-locks shallow-file: attr-source: no-advice super-prefix:")},
	"go": {opts: newOpts("+C:", "C:")},
	"npm": {opts: newOpts("+C:w:gsqdyfD", "prefix: workspace: userconfig: globalconfig: registry: cache: loglevel: "+
		"location: tag: otp: global silent quiet verbose yes no-yes force json workspaces include-workspace-root "+
		"if-present ignore-scripts offline prefer-offline prefer-online dry-run no-audit no-fund no-color")},
	"pnpm": {opts: newOpts("+C:F:wr", "dir: filter: workspace-root recursive silent reporter: loglevel: stream")},
	"yarn": {opts: newOpts("+", "cwd: silent verbose offline")},
	// make's -j and -l take a number, attached or as the next word, or
	// none: they are left out here, so that both readings are made.
	"make": {opts: newOpts("+bBC:deE:f:hiI:kLnO::o:pqrRsStvW:w",
		"always-make directory: debug:: environment-overrides eval: file: makefile: help ignore-errors include-dir: "+
			"keep-going check-symlink-times just-print dry-run recon output-sync:: "+
			"old-file: assume-old: print-data-base question no-builtin-rules no-builtin-variables shuffle:: silent quiet "+
			"no-silent stop touch trace version print-directory no-print-directory what-if: new-file: assume-new: "+
			"warn-undefined-variables")},
	"cargo": {opts: newOpts("+VvqC:Z:h", "version list explain: verbose quiet color: locked offline frozen config: "+
		"help manifest-path:"), oneWord: []string{"+"}},
	"docker": {opts: newOpts("+c:DH:l:v", "config: context: debug host: log-level: tls tlscacert: tlscert: tlskey: tlsverify version")},
	"kubectl": {opts: newOpts("+n:s:v:", "namespace: context: kubeconfig: cluster: user: server: token: as: as-group: "+
		"as-uid: certificate-authority: client-certificate: client-key: cache-dir: request-timeout: tls-server-name: "+
		"insecure-skip-tls-verify match-server-version warnings-as-errors disable-compression profile: "+
		"profile-output: password: username: v: vmodule: log-flush-frequency:")},
	"terraform": {opts: newOpts("+", ""), oneWord: []string{"-chdir=", "-help", "-version"}},
}

const (
	// maxReadings bounds the readings of one command's global options,
	// and maxReadSteps the work of finding them: each word the reader
	// does not know doubles the ways to read the rest.
	maxReadings  = 8
	maxReadSteps = 64
)

// A reading is one way the program may read its words: argv with the
// global options left out, and sub, the index in the words of the first
// word after them (the subcommand), len(words) for none.
type reading struct {
	argv []word
	sub  int
}

// globalReadings returns the readings of a command whose program has
// global options, or nil. The program is named by its base name, case
// folded and without ".exe", as deny rules name it.
func globalReadings(ws []word) []reading {
	if len(ws) == 0 || !ws[0].lit {
		return nil
	}
	spec := globalSpecs[programKey(ws[0].text)]
	if spec == nil {
		return nil
	}
	var out []reading
	seen := map[int]bool{}
	budget := maxReadSteps
	var from func(i int)
	from = func(i int) {
		// A word the reader does not know is read as a flag first, then
		// as an option taking the next word; the first reading found is
		// the one with every such word a flag.
		var forks []int
		for budget > 0 {
			budget--
			i = spec.skipOneWord(ws, i)
			sc := spec.opts.read(ws, i)
			if sc.ok {
				if n := sc.rest(len(ws)); !seen[n] && len(out) < maxReadings {
					seen[n] = true
					out = append(out, reading{argv: append([]word{ws[0]}, ws[n:]...), sub: n})
				}
				break
			}
			if sc.stop+2 <= len(ws) {
				forks = append(forks, sc.stop+2)
			}
			i = sc.stop + 1
		}
		for _, k := range forks {
			from(k)
		}
	}
	from(1)
	return out
}

// skipOneWord skips the words from i on that are options whole.
func (s *globalSpec) skipOneWord(ws []word, i int) int {
	for i < len(ws) && ws[i].lit && hasAnyPrefix(ws[i].text, s.oneWord) {
		i++
	}
	return i
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// programKey is the name a deny rule knows a program by: its base name,
// case folded (a case-insensitive file system runs /usr/bin/GIT as git),
// without ".exe".
func programKey(name string) string {
	return strings.TrimSuffix(strings.ToLower(path.Base(name)), ".exe")
}
