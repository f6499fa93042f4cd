package metrics

import "testing"

func TestPushURL(t *testing.T) {
	for _, c := range []struct{ base, shard, want string }{
		{"http://pushgateway:9091", "0/1", "http://pushgateway:9091/metrics/job/reconcile/shard@base64/MC8x"},
		{"https://gw.example.com/prom/", "12/64", "https://gw.example.com/prom/metrics/job/reconcile/shard@base64/MTIvNjQ"},
	} {
		if got, err := PushURL(c.base, c.shard); err != nil || got != c.want {
			t.Errorf("PushURL(%q, %q) = %q, %v; want %q", c.base, c.shard, got, err, c.want)
		}
	}
	for _, bad := range []string{"pushgateway:9091", "ftp://gw", "http://u:p@gw", "http://gw?x=1", "http://"} {
		if _, err := PushURL(bad, "0/1"); err == nil {
			t.Errorf("PushURL(%q) accepted", bad)
		}
	}
}
