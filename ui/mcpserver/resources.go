package mcpserver

// Resources memreview://records/{id} and memreview://proposals/{id}, and
// Watch, which follows the bank's change sequence and tells subscribed
// sessions when one of them changes (a proposal decided, a record written).

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
)

// Resource URI prefixes.
const (
	RecordURI   = "memreview://records/"
	ProposalURI = "memreview://proposals/"
)

func (s *Server) addResources(m *mcp.Server) {
	m.AddResourceTemplate(&mcp.ResourceTemplate{Name: "record", Title: "Memory record", MIMEType: "application/json",
		URITemplate: RecordURI + "{id}", Description: "A memory record's current version (as memory_read returns it)."}, s.readResource)
	m.AddResourceTemplate(&mcp.ResourceTemplate{Name: "proposal", Title: "Proposal status", MIMEType: "application/json",
		URITemplate: ProposalURI + "{id}", Description: "Where a proposal stands (as proposal_status returns it); subscribe to hear when it is decided."}, s.readResource)
}

func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	var v any
	switch {
	case strings.HasPrefix(uri, RecordURI):
		r, err := s.bank.Record(ctx, strings.TrimPrefix(uri, RecordURI))
		if errors.Is(err, review.ErrNotFound) || err == nil && !principalOf(req.Extra).Sees(r) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if err != nil {
			return nil, err
		}
		v = recordOut(r)
	case strings.HasPrefix(uri, ProposalURI):
		id := strings.TrimPrefix(uri, ProposalURI)
		who := principalOf(req.Extra)
		if p, _, err := s.bank.ProposalStatus(ctx, id); errors.Is(err, review.ErrNotFound) || err == nil && !s.proposalVisible(ctx, who, p) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		out, err := s.statusOf(ctx, who, id)
		if err != nil {
			return nil, err
		}
		v = out
	default:
		return nil, mcp.ResourceNotFoundError(uri)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// subscription counts a resource's subscribers and says from which change
// on they want to hear: a change already in the bank when the first of
// them subscribed (the agent's own memory_propose) is not news.
type subscription struct {
	n     int
	since int64
}

func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if !strings.HasPrefix(uri, RecordURI) && !strings.HasPrefix(uri, ProposalURI) {
		return errors.New("only memreview://records/{id} and memreview://proposals/{id} can be subscribed to")
	}
	if !s.uriVisible(ctx, principalOf(req.Extra), uri) {
		return mcp.ResourceNotFoundError(uri)
	}
	seq, err := s.bank.LastSeq(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	sub, ok := s.subscribed[uri]
	if !ok {
		sub.since = seq
	}
	sub.n++
	s.subscribed[uri] = sub
	s.mu.Unlock()
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.mu.Lock()
	if sub := s.subscribed[req.Params.URI]; sub.n <= 1 {
		delete(s.subscribed, req.Params.URI)
	} else {
		sub.n--
		s.subscribed[req.Params.URI] = sub
	}
	s.mu.Unlock()
	return nil
}

// StartWatch follows the bank's changes in the background until ctx ends
// and sends resources/updated for each record or proposal a session
// subscribed to that changed after it subscribed. Decisions made anywhere
// (the TUI, the CLI, another server) reach subscribers as soon as the
// service's change follower sees them. It follows from the change
// sequence as it is when StartWatch returns: a change made after the call
// reaches its subscribers, however late the goroutine starts. The channel
// gets the follower's result when ctx ends.
func (s *Server) StartWatch(ctx context.Context) (<-chan error, error) {
	seq, err := s.bank.LastSeq(ctx)
	if err != nil {
		return nil, err
	}
	changes := s.bank.Watch(ctx, seq)
	done := make(chan error, 1)
	go func() { done <- s.notify(ctx, changes) }()
	return done, nil
}

func (s *Server) notify(ctx context.Context, changes <-chan []review.Change) error {
	for batch := range changes {
		for _, c := range batch {
			var uri string
			switch c.Kind {
			case "record":
				uri = RecordURI + c.ID
			case "proposal":
				uri = ProposalURI + c.ID
			default:
				continue
			}
			s.mu.Lock()
			sub := s.subscribed[uri]
			s.mu.Unlock()
			if sub.n > 0 && c.Seq > sub.since {
				for _, m := range s.servers() {
					if err := m.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
						s.log.Warn("watch: resources/updated was not sent", "uri", uri, "err", err)
					}
				}
			}
		}
	}
	return nil
}
