import { replayAreas } from "./replay.js"

replayAreas("tools")
