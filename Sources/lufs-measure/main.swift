import AudioTools

ToolMain.run(LufsMeasure.self)
