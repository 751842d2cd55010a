package openai

import ()
