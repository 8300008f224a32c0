package httpapi

import (
	"container/list"
	"strconv"
	"sync"
)

// response is a finished answer: what the cache keeps.
type response struct {
	status      int
	contentType string
	body        []byte
	etag        string
	// hdr holds the header values send writes, built once by prepare
	// before the cache shares the answer (nil: built on each send).
	hdr *respHeader
}

// respHeader is a response's header values. The slices are shared by
// every request the answer goes to: nothing appends to or changes them
// (Header.Set and Add replace or copy a one-element slice).
type respHeader struct {
	contentType, etag, cacheControl, length []string
}

var (
	nosniff     = []string{"nosniff"}
	cachePublic = []string{cacheControl}
	noStore     = []string{"no-store"}
)

func (r *response) headerValues() *respHeader {
	if r.hdr != nil {
		return r.hdr
	}
	h := &respHeader{contentType: []string{r.contentType}, length: []string{strconv.Itoa(len(r.body))}, cacheControl: noStore}
	if r.etag != "" {
		h.etag, h.cacheControl = []string{r.etag}, cachePublic
	}
	return h
}

// prepare builds the header values once, before r is shared.
func (r *response) prepare() { r.hdr = r.headerValues() }

// lru keeps finished answers keyed by the normalized request. The
// database is read-only, so an answer never goes stale while the process
// lives; the bounds only cap memory.
type lru struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	bytes      int
	order      *list.List // front = most recently used
	items      map[string]*list.Element
}

type lruItem struct {
	key  string
	resp *response
}

func newLRU(maxEntries, maxBytes int) *lru {
	return &lru{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

func (c *lru) get(key string) (*response, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruItem).resp, true
}

func (c *lru) add(key string, r *response) {
	if c == nil {
		return
	}
	size := len(key) + len(r.body)
	if size > c.maxBytes/4 {
		return // one huge answer must not flush everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&lruItem{key, r})
	c.bytes += size
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		el := c.order.Back()
		it := el.Value.(*lruItem)
		c.order.Remove(el)
		delete(c.items, it.key)
		c.bytes -= len(it.key) + len(it.resp.body)
	}
}

func (c *lru) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// flights tracks questions being computed, so one computes and the rest
// wait (a minimal singleflight: the answer is shared through the cache).
type flights struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

// join returns a channel closed when key's computation ends; leader is
// true for the caller that must compute it (and then call leave).
func (f *flights) join(key string) (wait <-chan struct{}, leader bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.m[key]; ok {
		return c, false
	}
	if f.m == nil {
		f.m = map[string]chan struct{}{}
	}
	c := make(chan struct{})
	f.m[key] = c
	return c, true
}

func (f *flights) leave(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.m[key])
	delete(f.m, key)
}
