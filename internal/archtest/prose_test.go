package archtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Prose limits of the README and docs/: short sentences, one idea each.
const (
	maxAverageWords  = 20
	maxSentenceWords = 45
)

// TestDocsInShortSentences: in the README and every page of docs/, sentences average
// fewer than 20 words and none has more than 45. Code blocks, tables and headings are
// not prose and are not counted; a list item without a full stop runs on into the next.
// `go test -v -run TestDocsInShortSentences ./internal/archtest` prints each page's
// figures.
func TestDocsInShortSentences(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		ss := sentences(string(b))
		if len(ss) == 0 {
			continue
		}
		words, longest := 0, ""
		for _, s := range ss {
			n := len(strings.Fields(s))
			words += n
			if n > len(strings.Fields(longest)) {
				longest = s
			}
			if n > maxSentenceWords {
				t.Errorf("%s: a sentence of %d words (at most %d): %q", rel(root, page), n, maxSentenceWords, s)
			}
		}
		avg := float64(words) / float64(len(ss))
		t.Logf("%-28s %5d sentences, %5.1f words on average, longest %d", rel(root, page), len(ss), avg, len(strings.Fields(longest)))
		if words >= maxAverageWords*len(ss) {
			t.Errorf("%s: sentences average %.1f words (under %d)", rel(root, page), avg, maxAverageWords)
		}
	}
}

func rel(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return r
}

var (
	fence       = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$")
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	// A sentence ends at . ! or ? before a space, or at the end of its paragraph.
	sentenceEnd = regexp.MustCompile(`([.!?])\s+`)
)

// sentences returns the prose sentences of a Markdown page. Paragraphs are separated by
// blank lines; the lines of one are joined, so a list item that does not end with a
// full stop runs on into the next.
func sentences(md string) []string {
	md = fence.ReplaceAllString(md, "")
	md = htmlComment.ReplaceAllString(md, "")
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(md, "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case trim == "":
			flush()
		case strings.HasPrefix(trim, "#"), strings.HasPrefix(trim, "|"), strings.HasPrefix(trim, "!["):
			// headings, table rows and pictures are not prose
		default:
			cur = append(cur, trim)
		}
	}
	flush()
	var out []string
	for _, p := range paras {
		p = sentenceEnd.ReplaceAllString(p, "$1\n")
		for _, s := range strings.Split(p, "\n") {
			if s = strings.TrimSpace(s); len(strings.Fields(s)) > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

func TestSentencesSplit(t *testing.T) {
	md := "# Title\n\nOne two three. Four five.\n\n```\ncode. Code.\n```\n\n| a. | B. |\n\n- item one\n- item `two`. Three\n"
	got := fmt.Sprintf("%q", sentences(md))
	want := `["One two three." "Four five." "- item one - item ` + "`two`" + `." "Three"]`
	if got != want {
		t.Errorf("sentences: %s, want %s", got, want)
	}
}
