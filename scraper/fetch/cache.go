package fetch

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Entry is what conditional GET remembers about a URL.
type Entry struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Body         []byte `json:"body"`
}

// Cache stores entries by requested URL (before any BaseURL rewrite).
type Cache interface {
	Get(url string) (Entry, bool)
	Put(url string, e Entry)
}

// MemCache is an in-memory Cache.
type MemCache struct {
	mu sync.Mutex
	m  map[string]Entry
}

// Get implements Cache.
func (c *MemCache) Get(url string) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[url]
	return e, ok
}

// Put implements Cache.
func (c *MemCache) Put(url string, e Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]Entry{}
	}
	c.m[url] = e
}

// FileCache is a MemCache loaded from and saved to a JSON file (the
// refresh job keeps it at data/.fetch-cache.json, ignored by git).
type FileCache struct {
	MemCache
	Path string
}

// LoadFileCache reads path; a missing or unreadable file starts empty,
// since the cache only saves bandwidth and is never a source of truth.
func LoadFileCache(path string) *FileCache {
	c := &FileCache{Path: path}
	b, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var m map[string]Entry
	if json.Unmarshal(b, &m) == nil {
		c.m = m
	}
	return c
}

// Save writes the cache through a temporary file and a rename.
func (c *FileCache) Save() error {
	c.mu.Lock()
	b, err := json.Marshal(c.m) // map keys come out sorted
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.Path), "."+filepath.Base(c.Path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("failed to save the fetch cache: %w", err)
	}
	return os.Rename(tmp.Name(), c.Path)
}
