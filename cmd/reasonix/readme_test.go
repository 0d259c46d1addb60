package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A mdSection is a README's text under one heading (the first has the
// document's title): its blocks in order.
type mdSection struct {
	heading string // "## Use it"; "# Reasonix" for the text before the first section
	blocks  []mdBlock
}

// A mdBlock is a paragraph (consecutive non-blank lines) or a fenced code
// block.
type mdBlock struct {
	code bool
	lang string // of a code block
	text string // a paragraph's lines, or a code block's body
}

// kind names a block for a message: "paragraph", or "```lang block".
func (b mdBlock) kind() string {
	if !b.code {
		return "paragraph"
	}
	return "```" + b.lang + " block"
}

// quote is the start of a block's text, to find it by.
func (b mdBlock) quote() string {
	s := strings.Join(strings.Fields(b.text), " ")
	if r := []rune(s); len(r) > 70 {
		s = string(r[:70]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// parseMarkdown splits a document into sections at its "##" and "###"
// headings, and each section into paragraphs and fenced code blocks.
func parseMarkdown(text string) []mdSection {
	var (
		secs  []mdSection
		para  []string
		fence *mdBlock
		body  []string
	)
	flush := func() {
		if len(para) > 0 {
			secs[len(secs)-1].blocks = append(secs[len(secs)-1].blocks, mdBlock{text: strings.Join(para, "\n")})
			para = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case fence != nil && strings.TrimSpace(line) == "```":
			fence.text = strings.Join(body, "\n")
			secs[len(secs)-1].blocks = append(secs[len(secs)-1].blocks, *fence)
			fence, body = nil, nil
		case fence != nil:
			body = append(body, line)
		case len(secs) == 0 || strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### "):
			flush()
			secs = append(secs, mdSection{heading: line})
		case strings.HasPrefix(line, "```"):
			flush()
			fence = &mdBlock{code: true, lang: strings.TrimSpace(strings.TrimPrefix(line, "```"))}
		case strings.TrimSpace(line) == "":
			flush()
		default:
			para = append(para, line)
		}
	}
	flush()
	return secs
}

var (
	codeSpan = regexp.MustCompile("`[^`]+`")
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// shComment is a shell comment: a translation may translate it.
	shComment = regexp.MustCompile(`(^|\s)#.*$`)
)

// codeLines is a code block's body as it must read in both languages:
// byte for byte, except that a shell block's comments may be translated.
func codeLines(b mdBlock) []string {
	lines := strings.Split(b.text, "\n")
	if b.lang == "sh" {
		for i, l := range lines {
			lines[i] = strings.TrimRight(shComment.ReplaceAllString(l, ""), " \t")
		}
	}
	return lines
}

// spans are the inline code spans and the link targets of a paragraph,
// sorted, since a translation may order a sentence differently. The
// English README's link to the translation is the translation's link back.
func spans(p string) []string {
	var out []string
	for _, c := range codeSpan.FindAllString(p, -1) {
		// A line break in a code span renders as a space.
		out = append(out, strings.Join(strings.Fields(c), " "))
	}
	for _, m := range mdLink.FindAllStringSubmatch(p, -1) {
		t := m[1]
		if t == "README.zh-CN.md" {
			t = "README.md"
		}
		out = append(out, "("+t+")")
	}
	slices.Sort(out)
	return out
}

// compareTranslation reports how a translation's structure differs from
// the original's, one message per difference, naming the section.
func compareTranslation(orig, tr []mdSection) []string {
	var errs []string
	if len(orig) != len(tr) {
		var o, t []string
		for _, s := range orig {
			o = append(o, "  "+s.heading)
		}
		for _, s := range tr {
			t = append(t, "  "+s.heading)
		}
		return []string{fmt.Sprintf("README.md has %d sections, README.zh-CN.md %d; sections map by order, so add or remove the heading that differs:\nREADME.md:\n%s\nREADME.zh-CN.md:\n%s",
			len(orig), len(tr), strings.Join(o, "\n"), strings.Join(t, "\n"))}
	}
sections:
	for i := range orig {
		o, t := orig[i], tr[i]
		where := fmt.Sprintf("section %q (README.zh-CN.md %q)", o.heading, t.heading)
		if lo, lt := strings.IndexByte(o.heading, ' '), strings.IndexByte(t.heading, ' '); lo != lt {
			errs = append(errs, fmt.Sprintf("%s: the headings' levels differ", where))
		}
		n := min(len(o.blocks), len(t.blocks))
		for j := 0; j < n; j++ {
			ob, tb := o.blocks[j], t.blocks[j]
			at := fmt.Sprintf("%s, block %d", where, j+1)
			if ob.code != tb.code || ob.lang != tb.lang {
				errs = append(errs, fmt.Sprintf("%s: README.md has a %s here, %s, where README.zh-CN.md has a %s, %s; README.md's blocks from here on:%s",
					at, ob.kind(), ob.quote(), tb.kind(), tb.quote(), rest(o.blocks[j:])))
				continue sections
			}
			if ob.code {
				if ol, tl := codeLines(ob), codeLines(tb); !slices.Equal(ol, tl) {
					errs = append(errs, fmt.Sprintf("%s: the %s differs; copy README.md's:\n%s", at, ob.kind(), ob.text))
				}
				continue
			}
			if strings.HasPrefix(ob.text, "**") != strings.HasPrefix(tb.text, "**") {
				errs = append(errs, fmt.Sprintf("%s: only one of the paragraphs leads with a bold phrase: README.md %s, README.zh-CN.md %s", at, ob.quote(), tb.quote()))
			}
			if osp, tsp := spans(ob.text), spans(tb.text); !slices.Equal(osp, tsp) {
				errs = append(errs, fmt.Sprintf("%s: the paragraph README.md %s and its translation %s differ in code spans or links:\n  only in README.md:       %s\n  only in README.zh-CN.md: %s\nREADME.md's paragraph:\n%s",
					at, ob.quote(), tb.quote(), strings.Join(minus(osp, tsp), " "), strings.Join(minus(tsp, osp), " "), ob.text))
			}
		}
		if len(o.blocks) > n {
			errs = append(errs, fmt.Sprintf("%s: README.md has %d more blocks at the end, to translate:%s", where, len(o.blocks)-n, rest(o.blocks[n:])))
		} else if len(t.blocks) > n {
			errs = append(errs, fmt.Sprintf("%s: README.zh-CN.md has %d blocks more than README.md at the end:%s", where, len(t.blocks)-n, rest(t.blocks[n:])))
		}
	}
	return errs
}

// rest lists blocks, one a line, by kind and start.
func rest(bs []mdBlock) string {
	var b strings.Builder
	for _, x := range bs {
		fmt.Fprintf(&b, "\n  %s %s", x.kind(), x.quote())
	}
	return b.String()
}

// minus is what a holds that b does not, counting repeats.
func minus(a, b []string) []string {
	left := slices.Clone(b)
	var out []string
	for _, s := range a {
		if i := slices.Index(left, s); i >= 0 {
			left = slices.Delete(left, i, i+1)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// TestReadmeTranslation keeps README.zh-CN.md in step with README.md: the
// same sections in the same order, in each the same sequence of paragraphs
// and code blocks, the same code blocks (shell comments aside), and in
// each paragraph the same inline code and links. A failure names the
// section and the block of README.md to translate.
func TestReadmeTranslation(t *testing.T) {
	read := func(name string) []mdSection {
		data, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		return parseMarkdown(string(data))
	}
	for _, e := range compareTranslation(read("README.md"), read("README.zh-CN.md")) {
		t.Error(e)
	}
}

// TestCompareTranslation shows that each kind of drift is caught.
func TestCompareTranslation(t *testing.T) {
	const orig = "# T\n\nIntro `a`.\n\n## One\n\nSee [x](docs/X.md).\n\n```sh\nmake demo   # runs it\n```\n\n**Bold** `b`.\n"
	tests := []struct {
		name, tr, want string
	}{
		{"in step", "# T\n\n介绍 `a`。\n\n## 一\n\n见 [x](docs/X.md)。\n\n```sh\nmake demo   # 运行\n```\n\n**粗体** `b`。\n", ""},
		{"missing section", "# T\n\n介绍 `a`。\n", `README.md has 2 sections, README.zh-CN.md 1`},
		{"missing paragraph", "# T\n\n介绍 `a`。\n\n## 一\n\n见 [x](docs/X.md)。\n\n```sh\nmake demo\n```\n", `section "## One" (README.zh-CN.md "## 一"): README.md has 1 more blocks at the end, to translate:` + "\n  paragraph \"**Bold** `b`.\""},
		{"block out of place", "# T\n\n介绍 `a`。\n\n## 一\n\n```sh\nmake demo\n```\n\n见 [x](docs/X.md)。\n\n**粗体** `b`。\n", `block 1: README.md has a paragraph here`},
		{"command drifted", "# T\n\n介绍 `a`。\n\n## 一\n\n见 [x](docs/X.md)。\n\n```sh\nmake demo-editor\n```\n\n**粗体** `b`。\n", "block 2: the ```sh block differs"},
		{"code span drifted", "# T\n\n介绍 `a [N]`。\n\n## 一\n\n见 [x](docs/X.md)。\n\n```sh\nmake demo\n```\n\n**粗体** `b`。\n", "only in README.md:       `a`\n  only in README.zh-CN.md: `a [N]`"},
		{"link drifted", "# T\n\n介绍 `a`。\n\n## 一\n\n见 [x](docs/Y.md)。\n\n```sh\nmake demo\n```\n\n**粗体** `b`。\n", "only in README.md:       (docs/X.md)"},
		{"bold lead lost", "# T\n\n介绍 `a`。\n\n## 一\n\n见 [x](docs/X.md)。\n\n```sh\nmake demo\n```\n\n粗体 `b`。\n", "only one of the paragraphs leads with a bold phrase"},
		{"heading level", "# T\n\n介绍 `a`。\n\n### 一\n\n见 [x](docs/X.md)。\n\n```sh\nmake demo\n```\n\n**粗体** `b`。\n", "the headings' levels differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := compareTranslation(parseMarkdown(orig), parseMarkdown(tt.tr))
			got := strings.Join(errs, "\n")
			switch {
			case tt.want == "" && len(errs) > 0:
				t.Errorf("want no difference, got:\n%s", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("want a difference containing\n%s\ngot:\n%s", tt.want, got)
			}
		})
	}
}
