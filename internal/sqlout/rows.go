package sqlout

import "database/sql"

// WriteRows writes every row of rows to out, header first, and closes
// out: the one loop of `reconcile sql` and `reconcile ack --list`. It does
// not close rows. A scan error and rows' own error are returned as they
// are, for the caller to say which query failed.
func WriteRows(rows *sql.Rows, out Writer) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	if err := out.Header(cols); err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := out.Row(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return out.Close()
}
