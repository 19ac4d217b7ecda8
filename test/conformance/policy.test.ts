import { replayAreas } from "./replay.js"

replayAreas("policy")
