package store

import "testing"

// TestWithoutStackTrace: the error DuckDB gave a run whose disk filled in
// its checkpoint (captured on a 3 MB tmpfs) is shown as its cause alone.
func TestWithoutStackTrace(t *testing.T) {
	full := `reopen /tmp/small/r.duckdb: checkpoint: FATAL Error: Failed to create checkpoint because of error: Could not write file "/tmp/small/r.duckdb": No space left on device

Stack Trace:

/tmp/reconcile-bin(duckdb::Exception::ToJSON(duckdb::ExceptionType, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)+0x56) [0x2250f66]
/tmp/reconcile-bin(duckdb::DuckTransactionManager::Checkpoint(duckdb::ClientContext&, bool)+0xbc) [0x1acb7bc]
/tmp/reconcile-bin() [0xe42a04]
`
	want := `reopen /tmp/small/r.duckdb: checkpoint: FATAL Error: Failed to create checkpoint because of error: Could not write file "/tmp/small/r.duckdb": No space left on device`
	if got := WithoutStackTrace(full); got != want {
		t.Errorf("WithoutStackTrace = %q, want %q", got, want)
	}
	if plain := "Catalog Error: Table with name x does not exist!"; WithoutStackTrace(plain) != plain {
		t.Errorf("an error without a stack trace changed: %q", WithoutStackTrace(plain))
	}
}
