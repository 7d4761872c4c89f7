// Package fifo is an unbounded first-in, first-out queue whose writer never blocks and
// whose reader is woken by a channel: for handing values from a callback that must not
// block (paho's message and token handlers) to a goroutine of one's own.
package fifo

import "sync"

// Queue is a FIFO of T. The zero Queue is not ready: use New. It is safe for concurrent
// use; one reader is expected.
type Queue[T any] struct {
	mu    sync.Mutex
	items []T
	wake  chan struct{} // capacity 1: a value there means "look again"
}

// New returns an empty queue.
func New[T any]() *Queue[T] { return &Queue[T]{wake: make(chan struct{}, 1)} }

// Push adds v at the end without ever blocking, and wakes the reader.
func (q *Queue[T]) Push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Pop takes the value at the front; false when the queue is empty.
func (q *Queue[T]) Pop() (T, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var zero T
	if len(q.items) == 0 {
		return zero, false
	}
	v := q.items[0]
	q.items[0] = zero // let the value go
	q.items = q.items[1:]
	return v, true
}

// Len is the number of values queued.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// Wake receives after a Push: the reader pops until the queue is empty, then waits here.
func (q *Queue[T]) Wake() <-chan struct{} { return q.wake }
