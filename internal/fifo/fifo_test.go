package fifo

import (
	"sync"
	"testing"
)

func TestOrderAndWake(t *testing.T) {
	q := New[int]()
	if _, ok := q.Pop(); ok {
		t.Fatal("empty queue popped a value")
	}
	for i := range 5 {
		q.Push(i)
	}
	select {
	case <-q.Wake():
	default:
		t.Fatal("a push did not wake the reader")
	}
	for i := range 5 {
		if n := q.Len(); n != 5-i {
			t.Fatalf("before pop %d: Len %d, want %d", i, n, 5-i)
		}
		if v, ok := q.Pop(); !ok || v != i {
			t.Fatalf("pop %d: %d %v", i, v, ok)
		}
	}
	if n := q.Len(); n != 0 {
		t.Fatalf("emptied: Len %d", n)
	}
}

// TestConcurrentWriters: pushes from many goroutines all arrive, each writer's in order.
func TestConcurrentWriters(t *testing.T) {
	q := New[[2]int]()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				q.Push([2]int{w, i})
			}
		}()
	}
	next := [4]int{}
	got := 0
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for got < 4000 {
		v, ok := q.Pop()
		if !ok {
			select {
			case <-q.Wake():
			case <-done:
			}
			continue
		}
		if v[1] != next[v[0]] {
			t.Fatalf("writer %d: got %d, want %d", v[0], v[1], next[v[0]])
		}
		next[v[0]]++
		got++
	}
}
