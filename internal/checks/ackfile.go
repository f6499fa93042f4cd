package checks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/reconcile/reconcile/queries"
)

// An acknowledgements file lists acknowledgements a run makes (and keeps
// in force while they are listed), so that they can live in version
// control beside the run's configuration (reconcile run --acknowledgements
// FILE; docs/workbook.md shows one):
//
//	acknowledgements:
//	  - kind: missed_cycle
//	    merchant: "800123"
//	    entity: "6034873819306413101960:4"
//	    reason: Customer disputes cycle 4; credit note pending
//	    owner: Jane Doe
//	    until: 2026-12-15
//	    ticket: FIN-1234        # optional
//
// It is read strictly, every byte taken as hostile: a key other than
// these, a value that is not a plain text (a list, a mapping, an alias), a
// date that is not YYYY-MM-DD, a kind the catalog does not have, a field
// missing or too long, a control character, the same finding twice, are
// errors naming the line. A file larger than maxAckFile is refused unread.

// maxAckFile bounds an acknowledgements file: a few hundred bytes an
// entry, so room for thousands.
const maxAckFile = 4 << 20

// maxAckEntries bounds the entries of a file.
const maxAckEntries = 20000

// ackFields are an entry's keys; required says whether it must be there.
var ackFields = map[string]bool{
	"kind": true, "merchant": true, "entity": true, "reason": true, "owner": true, "until": true, "ticket": false,
}

// ReadAcknowledgementFile reads and checks an acknowledgements file.
func ReadAcknowledgementFile(path string) ([]Acknowledgement, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("acknowledgements file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("acknowledgements file %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("acknowledgements file %s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxAckFile+1))
	if err != nil {
		return nil, fmt.Errorf("acknowledgements file %s: %w", path, err)
	}
	if len(b) > maxAckFile {
		return nil, fmt.Errorf("acknowledgements file %s: larger than %d MiB, not an acknowledgements file", path, maxAckFile>>20)
	}
	acks, err := ParseAcknowledgements(b)
	if err != nil {
		return nil, fmt.Errorf("acknowledgements file %s: %w", path, err)
	}
	return acks, nil
}

// ParseAcknowledgements parses the content of an acknowledgements file
// (see ReadAcknowledgementFile). Errors name the line.
func ParseAcknowledgements(b []byte) ([]Acknowledgement, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // an empty file acknowledges nothing
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("line %d: a second YAML document; the file holds one", extra.Line)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: want a mapping with the key acknowledgements", root.Line)
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "acknowledgements" {
			return nil, fmt.Errorf("line %d: unknown key %q (the file holds acknowledgements:)", k.Line, k.Value)
		}
		list = v
	}
	if list == nil || list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return nil, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: acknowledgements: want a list of entries", list.Line)
	}
	if len(list.Content) > maxAckEntries {
		return nil, fmt.Errorf("line %d: %d entries, at most %d", list.Line, len(list.Content), maxAckEntries)
	}
	seen := map[[3]string]int{}
	out := make([]Acknowledgement, 0, len(list.Content))
	for _, e := range list.Content {
		a, err := parseEntry(e)
		if err != nil {
			return nil, err
		}
		key := [3]string{a.Kind, a.MerchantID, a.EntityID}
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("line %d: %s %q of merchant %q is acknowledged on line %d already", e.Line, a.Kind, a.EntityID, a.MerchantID, first)
		}
		seen[key] = e.Line
		out = append(out, a)
	}
	return out, nil
}

// parseEntry reads one entry of the list.
func parseEntry(e *yaml.Node) (Acknowledgement, error) {
	if e.Kind != yaml.MappingNode {
		return Acknowledgement{}, fmt.Errorf("line %d: an entry must be a mapping (kind:, merchant:, entity:, reason:, owner:, until:, ticket:)", e.Line)
	}
	values := map[string]string{}
	for i := 0; i+1 < len(e.Content); i += 2 {
		k, v := e.Content[i], e.Content[i+1]
		required, known := ackFields[k.Value]
		switch {
		case k.Kind != yaml.ScalarNode || !known:
			return Acknowledgement{}, fmt.Errorf("line %d: unknown key %q (an entry has kind, merchant, entity, reason, owner, until and ticket)", k.Line, k.Value)
		case v.Kind != yaml.ScalarNode:
			return Acknowledgement{}, fmt.Errorf("line %d: %s: want a text, not a %s", v.Line, k.Value, nodeKind(v))
		case v.Tag == "!!null" && !required:
			continue
		case v.Tag == "!!null":
			return Acknowledgement{}, fmt.Errorf("line %d: %s: empty", v.Line, k.Value)
		}
		if _, dup := values[k.Value]; dup {
			return Acknowledgement{}, fmt.Errorf("line %d: %s given twice", k.Line, k.Value)
		}
		values[k.Value] = strings.TrimSpace(v.Value)
	}
	for name, required := range ackFields {
		if _, ok := values[name]; required && !ok {
			return Acknowledgement{}, fmt.Errorf("line %d: the entry has no %s", e.Line, name)
		}
	}
	if !slices.Contains(queries.Kinds(), values["kind"]) {
		return Acknowledgement{}, fmt.Errorf("line %d: kind %q: not a finding kind", valueLine(e, "kind"), values["kind"])
	}
	until, err := time.Parse(time.DateOnly, values["until"])
	if err != nil {
		return Acknowledgement{}, fmt.Errorf("line %d: until %q: want a date, YYYY-MM-DD", valueLine(e, "until"), values["until"])
	}
	a := Acknowledgement{
		Kind: values["kind"], MerchantID: values["merchant"], EntityID: values["entity"],
		Reason: values["reason"], Owner: values["owner"], Until: until, Ticket: values["ticket"],
	}
	if err := a.Validate(); err != nil {
		return Acknowledgement{}, fmt.Errorf("line %d: %w", e.Line, err)
	}
	return a, nil
}

// valueLine is the line of key's value in a mapping node.
func valueLine(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1].Line
		}
	}
	return m.Line
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}
