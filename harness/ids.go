package harness

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
)

// IDs hands out request ids that are unique in a run and name the check that sent them, so a
// reply that arrives late, during another check, is still attributed to its sender.
type IDs struct {
	n     atomic.Int64
	mu    sync.Mutex
	owner map[jsonrpc.ID]string
}

// NewIDs returns an allocator; numeric ids start high so they never meet the small ids checks
// send on purpose (0, 1, -5) on fresh connections.
func NewIDs() *IDs {
	ids := &IDs{owner: map[jsonrpc.ID]string{}}
	ids.n.Store(1000)
	return ids
}

// String returns a new string id such as "mcpspec:PING-RESPOND:1003".
func (a *IDs) String(owner string) jsonrpc.ID {
	id := jsonrpc.StringID(fmt.Sprintf("mcpspec:%s:%d", owner, a.n.Add(1)))
	a.remember(id, owner)
	return id
}

// Number returns a new integer id.
func (a *IDs) Number(owner string) jsonrpc.ID {
	id := jsonrpc.NumberID(a.n.Add(1))
	a.remember(id, owner)
	return id
}

func (a *IDs) remember(id jsonrpc.ID, owner string) {
	a.mu.Lock()
	a.owner[id] = owner
	a.mu.Unlock()
}

// Owner names the check that sent id, or "" if the harness did not allocate it.
func (a *IDs) Owner(id jsonrpc.ID) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.owner[id]
}
