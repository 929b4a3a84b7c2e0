"""Figures, clips and slides of questions, painted with QPainter (QtGui only, no widgets).

The same painting code makes PNG (any scale), SVG and PDF figures, every
frame of an exported clip and the window's presentation mode. What is shown
comes from the Qt-free `viewer.core.showcase` / `viewer.core.storyboard`
and the arrays of `viewer.render.question_media`; nothing here decides
benchmark questions.
"""
