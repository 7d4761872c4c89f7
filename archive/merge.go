package archive

import (
	"strconv"
	"strings"
)

// maxMergeRows is the most rows one merged INSERT writes.
const maxMergeRows = 128

// mergeInserts returns stmts with each run of one single-row INSERT (the same query,
// no other statement between its rows) written as multi-row INSERTs: the same rows in
// the same order, in fewer statements. A run is cut into statements of a power of two
// rows, at most maxMergeRows, so that few distinct statements are ever prepared. Other
// statements (an UPDATE, an upsert) stay where they are: the rows before them are
// written before them, those after after.
func mergeInserts(stmts []stmt) []stmt {
	out := make([]stmt, 0, len(stmts))
	var run []stmt // single-row INSERTs of one query, not written yet
	var head string
	flush := func() {
		for len(run) > 0 {
			n := maxMergeRows
			for n > len(run) {
				n /= 2
			}
			out = append(out, multiRow(head, run[:n]))
			run = run[n:]
		}
	}
	for _, s := range stmts {
		h, ok := singleRow(s)
		if ok && len(run) > 0 && s.query == run[0].query {
			run = append(run, s)
			continue
		}
		flush()
		if ok {
			run, head = append(run[:0], s), h
			continue
		}
		out = append(out, s)
	}
	flush()
	return out
}

// singleRow tells whether s is an INSERT of one row whose values are its arguments in
// order, "INSERT ... VALUES ($1, $2, ... $n)", and returns what comes before its
// values.
func singleRow(s stmt) (head string, ok bool) {
	if !strings.HasPrefix(s.query, "INSERT INTO ") || len(s.args) == 0 {
		return "", false
	}
	i := strings.LastIndex(s.query, "VALUES")
	if i < 0 {
		return "", false
	}
	vals := strings.TrimSpace(s.query[i+len("VALUES"):])
	if vals != placeholders(1, len(s.args)) {
		return "", false
	}
	return s.query[:i+len("VALUES")], true
}

// placeholders is "($from, ..., $(from+n-1))".
func placeholders(from, n int) string {
	b := make([]byte, 0, 5*n)
	b = append(b, '(')
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(from+i), 10)
	}
	return string(append(b, ')'))
}

// multiRow writes the rows of run, single-row INSERTs of one query, as one INSERT.
func multiRow(head string, run []stmt) stmt {
	if len(run) == 1 {
		return run[0]
	}
	k := len(run[0].args)
	var q strings.Builder
	q.WriteString(head)
	args := make([]any, 0, k*len(run))
	for i, s := range run {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteByte(' ')
		q.WriteString(placeholders(len(args)+1, k))
		args = append(args, s.args...)
	}
	return stmt{query: q.String(), args: args}
}
