package enforce

// Unmarshal lets the external tests hold the decoder to encoding/json.
var Unmarshal = unmarshal
