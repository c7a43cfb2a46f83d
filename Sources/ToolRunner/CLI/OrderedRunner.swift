import AudioIO
import Foundation

/// Processes items on `jobs` threads while reading input lazily, and hands results to `emit`
/// on the calling thread in input order. At most `window` items are read but not yet emitted,
/// so memory stays bounded however long the input is.
///
/// One mutex guards the state and three conditions say what changed, so each thread is woken only
/// for what it waits on (the reader for room, a worker for an item, the caller for the next result
/// in order). Results that come back in microseconds (cache hits) are not handed over one wake-up
/// each: the reader refills the window from half empty, and while results come quickly the caller
/// looks for them every millisecond (or when half the window is done) and takes all that are ready.
/// A slow item's result is handed over at once.
public final class OrderedRunner<Item, Output> {
    private let jobs: Int
    private let window: Int
    private let work: (Item) -> Output
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let room = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let itemReady = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let resultReady = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [(Int, Item)] = []
    private var queueHead = 0
    /// Results not yet emitted, by sequence number modulo `window`: at most `window` items are
    /// read and not yet emitted, so no two share a slot. (A ring, not a dictionary keyed by Int: that
    /// would cost every run a search of the runtime's conformance records for Int: Hashable.)
    private var results: [Output?] = []
    private var resultCount = 0
    private var inFlight = 0
    private var readCount = 0
    private var inputDone = false
    /// The sequence number the caller waits for next.
    private var nextToEmit = 0

    public init(jobs: Int, window: Int, work: @escaping (Item) -> Output) {
        self.jobs = max(1, jobs)
        self.window = max(window, self.jobs)
        self.work = work
        results = Array(repeating: nil, count: self.window)
        // Adaptive: a thread finding the mutex held spins briefly before sleeping. Every thread
        // takes it once or twice per item, and items from a cache take microseconds.
        var attr = pthread_mutexattr_t()
        pthread_mutexattr_init(&attr)
        pthread_mutexattr_settype(&attr, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attr)
        pthread_mutexattr_destroy(&attr)
        for c in [room, itemReady, resultReady] { pthread_cond_init(c, nil) }
    }

    deinit {
        pthread_mutex_destroy(mutex)
        for c in [room, itemReady, resultReady] { pthread_cond_destroy(c); c.deallocate() }
        mutex.deallocate()
    }

    /// Workers waiting for an item, whether the reader waits for room, whether the caller is
    /// polling for results (all under the mutex): so nobody is woken for nothing.
    private var idleWorkers = 0
    private var readerWaiting = false
    private var callerPolling = false
    /// An item done in less than this is quick: its result needn't wake the caller at once.
    package static var quickNanoseconds: UInt64 { 200_000 }
    /// How often the caller looks for results while they come quickly.
    package static var pollNanoseconds: UInt64 { 1_000_000 }

    private func lock() { pthread_mutex_lock(mutex) }
    /// Whether the result the caller waits for is in (under the mutex).
    private var nextIsReady: Bool { results[nextToEmit % window] != nil }
    private func unlock() { pthread_mutex_unlock(mutex) }

    /// `inputEnded` is called once on the calling thread, between two `emit`s, soon after the
    /// last input item has been read; `caughtUp` after each run of `emit`s, when the next result
    /// isn't ready yet (the moment to flush what they wrote).
    public func run<S: Sequence>(input: S, emit: (Output) -> Void, caughtUp: () -> Void = {}, inputEnded: () -> Void = {}) where S.Element == Item {
        let reader = Thread { [self] in
            var it = input.makeIterator()
            while true {
                lock()
                // A full window is refilled from half full, not one item per emitted one.
                if inFlight >= window {
                    readerWaiting = true
                    while inFlight > window / 2 { pthread_cond_wait(room, mutex) }
                    readerWaiting = false
                }
                unlock()
                let next = it.next()
                lock()
                if let item = next {
                    queue.append((readCount, item))
                    readCount += 1
                    inFlight += 1
                    if idleWorkers > 0 { pthread_cond_signal(itemReady) }
                } else {
                    inputDone = true
                    pthread_cond_broadcast(itemReady)
                    pthread_cond_signal(resultReady)
                }
                unlock()
                if next == nil { return }
            }
        }
        reader.stackSize = 1 << 22
        reader.start()
        for _ in 0..<jobs {
            let t = Thread { [self] in
                while true {
                    lock()
                    if queueHead >= queue.count && !inputDone {
                        // Going idle: what is ready goes out now rather than at the next poll.
                        if nextIsReady { pthread_cond_signal(resultReady) }
                        idleWorkers += 1
                        while queueHead >= queue.count && !inputDone { pthread_cond_wait(itemReady, mutex) }
                        idleWorkers -= 1
                    }
                    if queueHead >= queue.count {
                        if nextIsReady { pthread_cond_signal(resultReady) }
                        unlock()
                        return
                    }
                    let (seq, item) = queue[queueHead]
                    queueHead += 1
                    if queueHead > 64, queueHead * 2 > queue.count {
                        queue.removeFirst(queueHead); queueHead = 0
                    }
                    unlock()
                    let start = Clock.monotonicNanoseconds()
                    let out = work(item)
                    let slow = Clock.monotonicNanoseconds() - start >= Self.quickNanoseconds
                    lock()
                    results[seq % window] = out
                    resultCount += 1
                    // A quick result waits for the caller's next look (it polls while results come
                    // quickly) unless half the window is done; a slow one is handed over at once.
                    if nextIsReady, slow || !callerPolling || resultCount >= window / 2 {
                        pthread_cond_signal(resultReady)
                    }
                    unlock()
                }
            }
            t.stackSize = 1 << 23
            t.start()
        }
        var ready: [Output] = []
        var endReported = false
        var poll = false
        while true {
            lock()
            while !nextIsReady && !(inputDone && nextToEmit == readCount) && !(inputDone && !endReported) {
                if poll {
                    // Results have been coming quickly: look again in a millisecond instead of
                    // being woken for each. A look that finds nothing ends the polling.
                    callerPolling = true
                    var deadline = timespec()
                    clock_gettime(CLOCK_REALTIME, &deadline)
                    deadline.tv_nsec += Int(Self.pollNanoseconds)
                    if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
                    let timedOut = pthread_cond_timedwait(resultReady, mutex, &deadline) == ETIMEDOUT
                    callerPolling = false
                    if timedOut && !nextIsReady { poll = false }
                } else {
                    pthread_cond_wait(resultReady, mutex)
                }
            }
            if inputDone && !endReported {
                endReported = true
                unlock()
                inputEnded()
                continue
            }
            while let out = results[nextToEmit % window] {
                results[nextToEmit % window] = nil
                resultCount -= 1
                ready.append(out)
                nextToEmit += 1
            }
            unlock()
            if ready.isEmpty { break }
            poll = true
            for out in ready { emit(out) }
            // Room is made only once they are written: the window bounds what is read but not yet emitted.
            lock()
            inFlight -= ready.count
            if readerWaiting && inFlight <= window / 2 { pthread_cond_signal(room) }
            let more = nextIsReady
            unlock()
            if !more { caughtUp() }
            ready.removeAll(keepingCapacity: true)
        }
    }
}
