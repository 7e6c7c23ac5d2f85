package persist

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestBufMapFilterForks grows maps past several filter rebuilds while
// forking from random old versions, deleting and re-inserting, and checks
// every kept version against its model.
func TestBufMapFilterForks(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 7))
		type snap struct {
			m     BufMap[int]
			model map[string]int
		}
		var snaps []snap
		m, model := BufMap[int]{}, map[string]int{}
		for step := range 6000 {
			k := strconv.Itoa(r.IntN(3000))
			switch x := r.IntN(100); {
			case x < 70:
				m = m.Set(k, step)
				model[k] = step
			case x < 85:
				m = m.Delete(k)
				delete(model, k)
			case x < 97:
				v, ok := m.Get(k)
				w, wok := model[k]
				if ok != wok || v != w {
					t.Fatalf("seed %d step %d: Get(%s) = %d %v, want %d %v", seed, step, k, v, ok, w, wok)
				}
			default:
				if len(snaps) > 0 {
					s := snaps[r.IntN(len(snaps))]
					m = s.m
					model = map[string]int{}
					for k, v := range s.model {
						model[k] = v
					}
				}
			}
			if step%37 == 0 {
				c := map[string]int{}
				for k, v := range model {
					c[k] = v
				}
				snaps = append(snaps, snap{m, c})
			}
		}
		for i, s := range snaps {
			if s.m.Len() != len(s.model) {
				t.Fatalf("seed %d version %d: Len %d want %d", seed, i, s.m.Len(), len(s.model))
			}
			for k, v := range s.model {
				if got, ok := s.m.Get(k); !ok || got != v {
					t.Fatalf("seed %d version %d: Get(%s) = %d %v want %d", seed, i, k, got, ok, v)
				}
			}
			for j := range 3000 {
				k := strconv.Itoa(j)
				if _, in := s.model[k]; !in {
					if _, ok := s.m.Get(k); ok {
						t.Fatalf("seed %d version %d: Get(%s) found a deleted key", seed, i, k)
					}
				}
			}
		}
	}
}
