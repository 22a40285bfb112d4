package decode

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// ReadLabels reads a labels file: one label per line, line i (from 0)
// naming class i. Each line is trimmed of surrounding white space (and of
// a Windows line end). A blank line is kept as an empty label, so that
// the line numbers stay the class ids (a model whose class 0 is
// "background" or unused may leave that line blank): objects of such a
// class carry no label. A final line end adds no label. The file is
// UTF-8 (a byte-order mark at its start is dropped); a line that is not,
// or holds a NUL byte (UTF-16), is an error naming it that wraps
// ErrLabelsEncoding too. An error wraps ErrLabels and the file's error
// (errors.Is(err, fs.ErrNotExist) for a missing file) and names the
// path.
func ReadLabels(path string) ([]string, error) {
	return readFile(path, ParseLabels)
}

// ParseLabels reads labels from r as ReadLabels reads a file.
func ParseLabels(r io.Reader) ([]string, error) {
	return parseLines(r, strings.TrimSpace)
}

// ReadTokens reads a CTC dictionary (Config.Labels of mode ctc): one
// token per line, line i (from 1) the token of class i. Only the line
// end is removed — a token may be a space, or U+3000 as in PaddleOCR's
// Chinese dictionary — and a blank line is an empty token. UTF-8, a
// byte-order mark dropped, errors as ReadLabels'.
func ReadTokens(path string) ([]string, error) {
	return readFile(path, ParseTokens)
}

// ParseTokens reads tokens from r as ReadTokens reads a file.
func ParseTokens(r io.Reader) ([]string, error) {
	return parseLines(r, func(s string) string { return strings.TrimSuffix(s, "\r") })
}

func readFile(path string, parse func(io.Reader) ([]string, error)) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("decode: labels file %s: %w: %w", path, ErrLabels, err)
	}
	defer f.Close()
	lines, err := parse(f)
	if err != nil {
		return nil, fmt.Errorf("decode: labels file %s: %w", path, err)
	}
	return lines, nil
}

// parseLines splits r into lines, each through clean: UTF-8 checked
// (checkText), the byte-order mark of the first dropped.
func parseLines(r io.Reader, clean func(string) string) ([]string, error) {
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if len(lines) == 0 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if err := checkText(line, len(lines)+1); err != nil {
			return nil, err
		}
		lines = append(lines, clean(line))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLabels, err)
	}
	return lines, nil
}

// checkText returns an error wrapping ErrLabels and ErrLabelsEncoding
// when line n is not UTF-8, or holds a NUL byte: UTF-16 text without its
// byte-order mark is valid UTF-8 (an ASCII character and a NUL each),
// and a label read so would reach C, which ends a string at its NUL, as
// its first character ("c" for "cat").
func checkText(line string, n int) error {
	if !utf8.ValidString(line) {
		hint := ""
		if n == 1 && (strings.HasPrefix(line, "\xff\xfe") || strings.HasPrefix(line, "\xfe\xff")) {
			hint = ": a UTF-16 byte-order mark; save the file as UTF-8"
		}
		return fmt.Errorf("line %d is not UTF-8 (%q)%s: %w: %w", n, line, hint, ErrLabels, ErrLabelsEncoding)
	}
	if strings.IndexByte(line, 0) >= 0 {
		return fmt.Errorf("line %d holds a NUL byte (%q): UTF-16 text? save the file as UTF-8: %w: %w", n, line, ErrLabels, ErrLabelsEncoding)
	}
	return nil
}
