package enforce_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkFloorSideBySide times Check of a passing answer beside the
// floor under it, in one interleaved loop so that a busy machine slows
// them alike: json.Valid of the same bytes, and json.Unmarshal into the
// Go type the answer is for. 1KiB is the order answer; 64KiB the same
// order with ~800 items (its contract allowing them).
func BenchmarkFloorSideBySide(b *testing.B) {
	for _, c := range []struct{ name, schema, answer string }{
		{"1KiB", orderSchema, orderAnswer()},
		{"64KiB", strings.Replace(orderSchema, `"maxItems": 100`, `"maxItems": 10000`, 1), orderAnswerOf(64 << 10)},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := mustCompile(b, c.schema)
			raw := []byte(c.answer)
			b.SetBytes(int64(len(raw)))
			var check, valid, unmarshal time.Duration
			for b.Loop() {
				t0 := time.Now()
				if err := s.Check(c.answer); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if !json.Valid(raw) {
					b.Fatal("json.Valid refuses the answer")
				}
				t2 := time.Now()
				var o benchOrder
				if err := json.Unmarshal(raw, &o); err != nil {
					b.Fatal(err)
				}
				t3 := time.Now()
				check, valid, unmarshal = check+t1.Sub(t0), valid+t2.Sub(t1), unmarshal+t3.Sub(t2)
			}
			n := float64(b.N)
			b.ReportMetric(float64(check.Nanoseconds())/n, "check-ns/op")
			b.ReportMetric(float64(valid.Nanoseconds())/n, "valid-ns/op")
			b.ReportMetric(float64(unmarshal.Nanoseconds())/n, "unmarshal-ns/op")
			b.ReportMetric(float64(check)/float64(valid), "check/valid")
			b.ReportMetric(float64(check)/float64(unmarshal), "check/unmarshal")
		})
	}
}

// orderAnswerOf is a passing order answer of about size bytes.
func orderAnswerOf(size int) string {
	var b strings.Builder
	b.WriteString(`{"orderId": "ORD-20240501", "placed": "2024-05-01T10:00:00Z", "status": "paid", "customer": {"name": "Ada Lovelace", "email": "ada@example.com", "address": {"street": "12 St James's Square", "city": "London", "zip": "SW1Y 4JH"}}, "items": [`)
	total := 0
	for i := 0; b.Len() < size-100; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		qty, price := i%3+1, 199+150*i
		total += qty * price
		fmt.Fprintf(&b, `{"sku": "SKU-%d", "qty": %d, "priceCents": %d, "gift": %t}`, 1000+i, qty, price, i%4 == 0)
	}
	fmt.Fprintf(&b, `], "total": %d}`, total)
	return b.String()
}
