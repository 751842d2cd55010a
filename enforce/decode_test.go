package enforce_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

func BenchmarkDecode1KiB(b *testing.B) {
	answer := order1KiB(b)
	s := decodeOnly(b)
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		var o benchOrder
		if err := s.Decode(answer, &o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONUnmarshal1KiB(b *testing.B) {
	answer := order1KiB(b)
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		var o benchOrder
		if err := json.Unmarshal([]byte(answer), &o); err != nil {
			b.Fatal(err)
		}
	}
}

// benchOrder is what orderAnswer decodes into.
type benchOrder struct {
	OrderID  string `json:"orderId"`
	Placed   string `json:"placed"`
	Status   string `json:"status"`
	Customer struct {
		Name    string `json:"name"`
		Email   string `json:"email"`
		Address struct {
			Street string `json:"street"`
			City   string `json:"city"`
			Zip    string `json:"zip"`
		} `json:"address"`
	} `json:"customer"`
	Items []struct {
		SKU        string `json:"sku"`
		Qty        int    `json:"qty"`
		PriceCents int    `json:"priceCents"`
		Gift       bool   `json:"gift"`
	} `json:"items"`
	Total int `json:"total"`
}

func order1KiB(tb testing.TB) string {
	tb.Helper()
	a := orderAnswer()
	var got, want benchOrder
	if err := decodeOnly(tb).Decode(a, &got); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal([]byte(a), &want); err != nil || !reflect.DeepEqual(got, want) {
		tb.Fatalf("the benchmark answer decodes differently: %v", err)
	}
	return a
}

func ExampleSchema_Decode() {
	type Weather struct {
		City  string  `json:"city"`
		TempC float64 `json:"tempC"`
	}
	s, _ := enforce.SchemaFor[Weather]()
	answer := `{"city": "Paris", "tempC": 21.5}`
	if err := s.Check(answer); err != nil {
		fmt.Println(err)
		return
	}
	var w Weather
	if err := s.Decode(answer, &w); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", w)
	// Output: {City:Paris TempC:21.5}
}

// decodeOnly is a contract for the decode benchmarks: Decode does not
// judge, so which one does not matter.
func decodeOnly(tb testing.TB) *enforce.Schema { return mustCompile(tb, `true`) }
