package mcpserver

// Resources memreview://records/{id} and memreview://proposals/{id}, and
// Watch, which follows the bank's change sequence and tells subscribed
// sessions when one of them changes (a proposal decided, a record written).

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
)

// Resource URI prefixes.
const (
	RecordURI   = "memreview://records/"
	ProposalURI = "memreview://proposals/"
)

func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "record", Title: "Memory record", MIMEType: "application/json",
		URITemplate: RecordURI + "{id}", Description: "A memory record's current version (as memory_read returns it)."}, s.readResource)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "proposal", Title: "Proposal status", MIMEType: "application/json",
		URITemplate: ProposalURI + "{id}", Description: "Where a proposal stands (as proposal_status returns it); subscribe to hear when it is decided."}, s.readResource)
}

func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	var v any
	switch {
	case strings.HasPrefix(uri, RecordURI):
		r, err := s.bank.Record(ctx, strings.TrimPrefix(uri, RecordURI))
		if errors.Is(err, review.ErrNotFound) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if err != nil {
			return nil, err
		}
		v = recordOut(r)
	case strings.HasPrefix(uri, ProposalURI):
		id := strings.TrimPrefix(uri, ProposalURI)
		if _, _, err := s.bank.ProposalStatus(ctx, id); errors.Is(err, review.ErrNotFound) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		out, err := s.statusOf(ctx, id)
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

func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if !strings.HasPrefix(uri, RecordURI) && !strings.HasPrefix(uri, ProposalURI) {
		return errors.New("only memreview://records/{id} and memreview://proposals/{id} can be subscribed to")
	}
	s.mu.Lock()
	s.subscribed[uri]++
	s.mu.Unlock()
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.mu.Lock()
	if s.subscribed[req.Params.URI]--; s.subscribed[req.Params.URI] <= 0 {
		delete(s.subscribed, req.Params.URI)
	}
	s.mu.Unlock()
	return nil
}

// Watch follows the bank's change sequence until ctx ends, every
// Options.Poll, and sends resources/updated for each changed record or
// proposal that a session subscribed to. Decisions made anywhere (the TUI,
// the CLI, another server) reach subscribers within one poll.
func (s *Server) Watch(ctx context.Context) error {
	seq, err := s.bank.LastSeq(ctx)
	if err != nil {
		return err
	}
	return s.watchFrom(ctx, seq)
}

// StartWatch is Watch in the background, from the change sequence as it
// is when StartWatch returns: a change made after the call reaches its
// subscribers, however late the goroutine starts. The channel gets
// Watch's result when ctx ends.
func (s *Server) StartWatch(ctx context.Context) (<-chan error, error) {
	seq, err := s.bank.LastSeq(ctx)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- s.watchFrom(ctx, seq) }()
	return done, nil
}

func (s *Server) watchFrom(ctx context.Context, seq int64) error {
	tick := time.NewTicker(s.opt.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		changes, err := s.bank.ChangesSince(ctx, seq)
		if err != nil {
			s.log.Warn("watch: reading the bank's changes failed", "err", err)
			continue
		}
		for _, c := range changes {
			seq = max(seq, c.Seq)
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
			n := s.subscribed[uri]
			s.mu.Unlock()
			if n > 0 {
				_ = s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
			}
		}
	}
}
