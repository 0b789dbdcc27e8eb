package org.rocketmqts.interop.golden;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.TreeSet;

/** Writes fixture files under one root and remembers their names so duplicates fail loudly. */
final class Out {
    private final File root;
    private final TreeSet<String> written = new TreeSet<>();

    Out(File root) {
        this.root = root;
    }

    /** Writes bytes at a '/'-separated relative path and returns that path (the manifest key). */
    String write(String relPath, byte[] bytes) throws IOException {
        if (!written.add(relPath)) {
            throw new IllegalStateException("fixture written twice: " + relPath);
        }
        File f = new File(root, relPath);
        File dir = f.getParentFile();
        if (!dir.isDirectory() && !dir.mkdirs()) {
            throw new IOException("cannot create " + dir);
        }
        try (OutputStream os = new FileOutputStream(f)) {
            os.write(bytes);
        }
        return relPath;
    }

    String writeText(String relPath, String text) throws IOException {
        return write(relPath, text.getBytes(StandardCharsets.UTF_8));
    }

    int count() {
        return written.size();
    }
}
