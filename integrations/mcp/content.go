package mcp

import (
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// render is the text of content blocks as the model reads them: text as
// it is, and for what is not text a bracketed line that says what it is
// (an image, a resource) without its bytes, which a text message cannot
// carry. Blocks are separated by a newline.
func render(blocks []mcp.Content) string {
	var b strings.Builder
	for i, c := range blocks {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case *mcp.TextContent:
			b.WriteString(c.Text)
		case *mcp.ImageContent:
			b.WriteString(binary("image", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			b.WriteString(binary("audio", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			b.WriteString("[resource link: " + c.URI)
			if c.Name != "" {
				b.WriteString(" " + strconv.Quote(c.Name))
			}
			b.WriteString("]")
		case *mcp.EmbeddedResource:
			switch r := c.Resource; {
			case r == nil:
				b.WriteString("[resource]")
			case r.Text != "":
				b.WriteString(r.Text)
			default:
				b.WriteString(binary("resource "+r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			b.WriteString("[content the client does not show]")
		}
	}
	return b.String()
}

// binary describes a block of bytes: "[image: image/png, 68 bytes]".
func binary(what, mime string, n int) string {
	s := "[" + what
	if mime != "" {
		s += ": " + mime + ","
	} else {
		s += ":"
	}
	return s + " " + strconv.Itoa(n) + " bytes]"
}
