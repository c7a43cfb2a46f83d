import AudioTools

ToolMain.run(LufsNormalize.self)
