package preprocess

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// keyFile is a GLib key file (GKeyFile's syntax, the one .modelinfo
// files use): [group] lines, key=value lines, # comments, blank lines.
// As GLib does: whitespace before a line and around = is dropped, a key
// before the first group is an error, a group seen twice is one group,
// and a key set twice keeps the last value. Values keep their escapes
// until read (\s \n \t \r \\; \, inside a list).
type keyFile struct {
	groups []*kfGroup
	byName map[string]*kfGroup
}

type kfGroup struct {
	name string
	keys []string // in file order, each once
	vals map[string]string
	line map[string]int
}

func parseKeyFile(r io.Reader) (*keyFile, error) {
	kf := &keyFile{byName: map[string]*kfGroup{}}
	var g *kfGroup
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimLeft(strings.TrimSuffix(sc.Text(), "\r"), " \t\v\f")
		switch {
		case line == "" || line[0] == '#':
		case line[0] == '[':
			end := strings.IndexByte(line, ']')
			name := ""
			if end > 0 {
				name = line[1:end]
			}
			if end < 0 || strings.TrimSpace(line[end+1:]) != "" || name == "" || strings.ContainsAny(name, "[]") {
				return nil, fmt.Errorf("line %d: %q is not a [group] line", n, line)
			}
			if g = kf.byName[name]; g == nil {
				g = &kfGroup{name: name, vals: map[string]string{}, line: map[string]int{}}
				kf.groups = append(kf.groups, g)
				kf.byName[name] = g
			}
		default:
			eq := strings.IndexByte(line, '=')
			if eq < 0 {
				return nil, fmt.Errorf("line %d: %q is neither a [group], a key=value nor a # comment", n, line)
			}
			key := strings.TrimRight(line[:eq], " \t")
			if key == "" || strings.ContainsAny(key, "=[]") && !localised(key) {
				return nil, fmt.Errorf("line %d: %q is not a key", n, line[:eq])
			}
			if g == nil {
				return nil, fmt.Errorf("line %d: key %q before the first [group]", n, key)
			}
			if _, seen := g.vals[key]; !seen {
				g.keys = append(g.keys, key)
			}
			g.vals[key] = strings.TrimSpace(line[eq+1:])
			g.line[key] = n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return kf, nil
}

// localised reports a GLib localised key, key[locale].
func localised(key string) bool {
	i := strings.IndexByte(key, '[')
	return i > 0 && strings.HasSuffix(key, "]") && !strings.ContainsAny(key[:i], "[]=") &&
		!strings.ContainsAny(key[i+1:len(key)-1], "[]=")
}

// str returns a key's value with GLib's escapes resolved, and whether
// the key is there.
func (g *kfGroup) str(key string) (string, bool, error) {
	raw, ok := g.vals[key]
	if !ok {
		return "", false, nil
	}
	s, err := unescape(raw, false)
	if err != nil {
		return "", true, fmt.Errorf("[%s] %s (line %d): %v", g.name, key, g.line[key], err)
	}
	return s[0], true, nil
}

// unescape resolves GLib's escapes \s \n \t \r \\ in a value and,
// when list, splits it at the commas that are not escaped (\, is a
// comma inside an item); a trailing comma ends the list, as GLib's list
// getters read it. A value's leading whitespace is kept only written as
// \s, as GLib does.
func unescape(raw string, list bool) ([]string, error) {
	var items []string
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if list && c == ',' {
			items = append(items, b.String())
			b.Reset()
			continue
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i == len(raw) {
			return nil, fmt.Errorf("%q ends with a lone \\", raw)
		}
		switch raw[i] {
		case 's':
			b.WriteByte(' ')
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		case ',':
			if !list {
				return nil, fmt.Errorf("%q: escape \\, outside a list", raw)
			}
			b.WriteByte(',')
		default:
			return nil, fmt.Errorf("%q: unknown escape \\%c", raw, raw[i])
		}
	}
	if !list || b.Len() > 0 {
		items = append(items, b.String())
	}
	return items, nil
}

// list returns a key's value as a comma-separated list (the separator
// .modelinfo files set).
func (g *kfGroup) list(key string) ([]string, bool, error) {
	raw, ok := g.vals[key]
	if !ok {
		return nil, false, nil
	}
	items, err := unescape(raw, true)
	if err != nil {
		return nil, true, fmt.Errorf("[%s] %s (line %d): %v", g.name, key, g.line[key], err)
	}
	return items, true, nil
}

// ints returns a key's value as a list of integers (GLib's
// g_key_file_get_integer_list: each item a base-10 integer, whitespace
// around it allowed).
func (g *kfGroup) ints(key string) ([]int, bool, error) {
	items, ok, err := g.list(key)
	if !ok || err != nil {
		return nil, ok, err
	}
	out := make([]int, len(items))
	for i, it := range items {
		v, err := strconv.Atoi(strings.TrimSpace(it))
		if err != nil {
			return nil, true, fmt.Errorf("[%s] %s (line %d): item %d %q is not an integer", g.name, key, g.line[key], i, it)
		}
		out[i] = v
	}
	return out, true, nil
}

// floats returns a key's value as a list of numbers.
func (g *kfGroup) floats(key string) ([]float64, bool, error) {
	items, ok, err := g.list(key)
	if !ok || err != nil {
		return nil, ok, err
	}
	out := make([]float64, len(items))
	for i, it := range items {
		v, err := strconv.ParseFloat(strings.TrimSpace(it), 64)
		if err != nil {
			return nil, true, fmt.Errorf("[%s] %s (line %d): item %d %q is not a number", g.name, key, g.line[key], i, it)
		}
		out[i] = v
	}
	return out, true, nil
}
